//! The writer fields: the fields of a record that say who wrote it and
//! when (its time, host, identifier, unit, process, ranks and pid),
//! declared once in [`writer_field!`]'s list. Every struct that keeps
//! some of them (as text, as byte ranges, as places in a line) declares
//! them with [`writer_fields!`], which takes each one's doc and kind from
//! the list.

/// The list of writer fields, one arm each: the field's doc, its name,
/// and its kind (`text`, or `pid` for the process id). [`writer_fields!`]
/// looks a field up here by its name (and passes `$then` on).
///
/// A new writer field is one arm here and its name in [`writer_fields!`]'s
/// `all` (the list in order, in the same file), then its parser: every
/// struct that keeps all of them (`writer fields [all]`: the record, its
/// spans, an event's stream) gets it, and the compiler names every struct
/// literal that must fill it. A struct that keeps only some names them.
macro_rules! writer_field {
    (time $then:tt) => {
        $crate::framing::writer_fields! { @add $then
        /// The outermost timestamp, as printed (a structured journal's
        /// `__REALTIME_TIMESTAMP`, µs since the epoch, as text).
        time: text }
    };
    (host $then:tt) => {
        $crate::framing::writer_fields! { @add $then
        /// Host name from a journal or syslog prefix.
        host: text }
    };
    (identifier $then:tt) => {
        $crate::framing::writer_fields! { @add $then
        /// Journal/syslog identifier (`python3`, `systemd`, `kernel`), or a
        /// compose service name.
        identifier: text }
    };
    (unit $then:tt) => {
        $crate::framing::writer_fields! { @add $then
        /// The systemd unit the record is about or comes from (structured
        /// journal input only).
        unit: text }
    };
    (process $then:tt) => {
        $crate::framing::writer_fields! { @add $then
        /// Process tag: vLLM/Ray `(Name pid=N)` name or `rankN`.
        process: text }
    };
    (ranks $then:tt) => {
        $crate::framing::writer_fields! { @add $then
        /// Rank tags from an sglang header, as printed (`DP0 TP3`).
        ranks: text }
    };
    (pid $then:tt) => {
        $crate::framing::writer_fields! { @add $then
        /// Process id from the journal, a process tag or NCCL.
        pid: pid }
    };
}

/// Declares a struct with its own fields (each ending in a comma) and the
/// writer fields it names, after them: each text field of the type (and
/// visibility) given for text, the pid of the one given for the pid.
///
/// ```ignore
/// writer_fields! {
///     /// Doc of the struct.
///     #[derive(Debug)]
///     pub struct Name<'a> {
///         /// An own field.
///         pub message: &'a str,
///     }
///     writer fields [time, host, pid]: text as pub Option<&'a str>, pid as pub Option<u32>
/// }
/// ```
macro_rules! writer_fields {
    // All named fields added: the struct.
    (@next [
        [$(#[$meta:meta])* $vis:vis struct $name:ident $(<$lt:lifetime>)?]
        [$($own:tt)*] $types:tt
    ] [] [$($added:tt)*]) => {
        $(#[$meta])*
        $vis struct $name $(<$lt>)? {
            $($own)*
            $($added)*
        }
    };
    // The next named field: looked up in the list, which calls `@add`.
    (@next $decl:tt [$field:ident $($rest:ident)*] $added:tt) => {
        $crate::framing::writer_field! { $field [$decl [$($rest)*] $added] }
    };
    (@add [
        [$head:tt $own:tt [[[$tvis:vis] [$text:ty]] $pid:tt]] $rest:tt [$($added:tt)*]
    ] $(#[$doc:meta])* $field:ident: text) => {
        $crate::framing::writer_fields! { @next [$head $own [[[$tvis] [$text]] $pid]] $rest
            [$($added)* $(#[$doc])* $tvis $field: $text,] }
    };
    (@add [
        [$head:tt $own:tt [$text:tt [[$pvis:vis] [$pid:ty]]]] $rest:tt [$($added:tt)*]
    ] $(#[$doc:meta])* $field:ident: pid) => {
        $crate::framing::writer_fields! { @next [$head $own [$text [[$pvis] [$pid]]]] $rest
            [$($added)* $(#[$doc])* $pvis $field: $pid,] }
    };
    // Every writer field, in order.
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(<$lt:lifetime>)? { $($own:tt)* }
        writer fields [all]: $($types:tt)*
    ) => {
        $crate::framing::writer_fields! {
            $(#[$meta])*
            $vis struct $name $(<$lt>)? { $($own)* }
            writer fields [time, host, identifier, unit, process, ranks, pid]: $($types)*
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(<$lt:lifetime>)? { $($own:tt)* }
        writer fields [$($field:ident),+ $(,)?]: text as $tvis:vis $text:ty, pid as $pvis:vis $pid:ty $(,)?
    ) => {
        $crate::framing::writer_fields! { @next [
            [$(#[$meta])* $vis struct $name $(<$lt>)?] [$($own)*] [[[$tvis] [$text]] [[$pvis] [$pid]]]
        ] [$($field)*] [] }
    };
}

pub(crate) use {writer_field, writer_fields};
