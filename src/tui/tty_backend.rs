//! The picker's ratatui backend: crossterm's, drawing on `/dev/tty`, except
//! that it never asks the terminal where the cursor is.
//!
//! crossterm answers a cursor-position query by writing `ESC[6n` to the
//! process's *stdout* and waiting for the reply, whatever device the backend
//! draws on. The picker's stdout carries the result (a pipe, a file, `$(…)`),
//! so that query would corrupt the result and, with no reply coming, stall
//! and fail. The picker always knows where it last put the cursor, so this
//! backend answers from that instead of asking.

use std::fs::File;
use std::io;

use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};

/// crossterm's backend on a terminal device, with the cursor position
/// remembered rather than queried.
#[derive(Debug)]
pub struct TtyBackend {
    inner: CrosstermBackend<File>,
    /// Where the cursor was last put (the origin until then: the picker
    /// starts on a freshly cleared alternate screen).
    cursor: Position,
}

impl TtyBackend {
    /// A backend drawing on `tty`.
    pub fn new(tty: File) -> Self {
        TtyBackend {
            inner: CrosstermBackend::new(tty),
            cursor: Position::ORIGIN,
        }
    }
}

impl Backend for TtyBackend {
    type Error = io::Error;

    fn draw<'a, I>(&mut self, content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        let mut last = None;
        let result = self
            .inner
            .draw(content.inspect(|&(x, y, _)| last = Some((x, y))));
        if let Some((x, y)) = last {
            // Drawing moves the cursor to just after the last cell drawn.
            self.cursor = Position::new(x.saturating_add(1), y);
        }
        result
    }

    fn append_lines(&mut self, n: u16) -> io::Result<()> {
        self.inner.append_lines(n)
    }

    fn hide_cursor(&mut self) -> io::Result<()> {
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> io::Result<()> {
        self.inner.show_cursor()
    }

    /// The remembered position: never a query (see the module docs).
    fn get_cursor_position(&mut self) -> io::Result<Position> {
        Ok(self.cursor)
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> io::Result<()> {
        let position = position.into();
        self.inner.set_cursor_position(position)?;
        self.cursor = position;
        Ok(())
    }

    fn clear(&mut self) -> io::Result<()> {
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> io::Result<()> {
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> io::Result<Size> {
        self.inner.size()
    }

    fn window_size(&mut self) -> io::Result<WindowSize> {
        self.inner.window_size()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_position_is_remembered_not_queried() {
        let mut out = tempfile::tempfile().unwrap();
        let mut backend = TtyBackend::new(out.try_clone().unwrap());
        assert_eq!(backend.get_cursor_position().unwrap(), Position::ORIGIN);
        backend.set_cursor_position(Position::new(3, 4)).unwrap();
        assert_eq!(backend.get_cursor_position().unwrap(), Position::new(3, 4));
        let cell = Cell::new("x");
        backend.draw([(6, 2, &cell)].into_iter()).unwrap();
        assert_eq!(backend.get_cursor_position().unwrap(), Position::new(7, 2));
        backend.flush().unwrap();
        let mut written = Vec::new();
        use std::io::{Read, Seek};
        out.rewind().unwrap();
        out.read_to_end(&mut written).unwrap();
        let written = String::from_utf8(written).unwrap();
        assert!(written.contains("\u{1b}[5;4H"), "{written:?}");
        assert!(!written.contains("\u{1b}[6n"), "{written:?}");
    }
}
