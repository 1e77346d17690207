//! Styles of the picker, with and without colour (`NO_COLOR`): without
//! colour every distinction is made with bold, reverse, underline or dim.

use ratatui::style::{Color, Modifier, Style};

use session_ref_core::projection::Role;

/// The picker's styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Whether colours may be used.
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to a non-empty value (no-color.org).
    pub fn from_no_color(no_color: Option<&str>) -> Self {
        Theme {
            color: no_color.is_none_or(str::is_empty),
        }
    }

    fn pick(self, color: Style, plain: Style) -> Style {
        if self.color {
            color
        } else {
            plain
        }
    }

    /// The highlighted candidate row.
    pub fn selected(self) -> Style {
        self.pick(
            Style::new()
                .bg(Color::DarkGray)
                .add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::REVERSED),
        )
    }

    /// Characters matched by the query.
    pub fn matched(self) -> Style {
        self.pick(
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
    }

    /// A mention chip in the prompt.
    pub fn chip(self) -> Style {
        self.pick(
            Style::new().fg(Color::Black).bg(Color::Cyan),
            Style::new().add_modifier(Modifier::REVERSED),
        )
    }

    /// A mention whose URI does not decode.
    pub fn chip_invalid(self) -> Style {
        self.pick(
            Style::new().fg(Color::White).bg(Color::Red),
            Style::new().add_modifier(Modifier::REVERSED | Modifier::CROSSED_OUT),
        )
    }

    /// Secondary text: counts, paths, ages, rules.
    pub fn dim(self) -> Style {
        self.pick(
            Style::new().fg(Color::DarkGray),
            Style::new().add_modifier(Modifier::DIM),
        )
    }

    /// Errors.
    pub fn error(self) -> Style {
        self.pick(
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }

    /// Prompts, focus and keys.
    pub fn accent(self) -> Style {
        self.pick(
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }

    /// The mark of sessions in the target's directory.
    pub fn here(self) -> Style {
        self.pick(Style::new().fg(Color::Green), Style::new())
    }

    /// A role heading in the preview.
    pub fn role(self, role: Role) -> Style {
        let color = match role {
            Role::User => Color::Green,
            Role::Assistant => Color::Magenta,
        };
        self.pick(
            Style::new().fg(color).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_means_a_non_empty_value() {
        assert!(Theme::from_no_color(None).color);
        assert!(Theme::from_no_color(Some("")).color);
        assert!(!Theme::from_no_color(Some("1")).color);
    }
}
