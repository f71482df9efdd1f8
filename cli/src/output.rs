//! The commands' standard output. A reader that stops reading (`acr index DIR | head -3`) ends the program quietly,
//! as a pipe's writer should: `println!` would panic on the closed pipe instead.

use std::fmt;
use std::io::{self, Write};
use std::process;

/// Writes `args` to standard output; a closed pipe exits with status 0, any other failure with status 2.
pub fn write(args: fmt::Arguments<'_>) {
    if let Err(e) = io::stdout().lock().write_fmt(args) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            process::exit(0);
        }
        eprintln!("acr: cannot write to standard output: {e}");
        process::exit(2);
    }
}

/// `print!` through [`write`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write(format_args!($($arg)*)) };
}

/// `println!` through [`write`].
macro_rules! outln {
    ($($arg:tt)*) => { $crate::output::write(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {out, outln};
