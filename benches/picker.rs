//! The picker's responsiveness, end to end: the real driver on a ratatui
//! `TestBackend` whose every flush is timestamped, fed as the terminal
//! feeds it (listing and titles as jobs on rayon's pool, keys posted to the
//! one channel).
//!
//! - **First frame against listing**: on a store (`PICKER_STORE`, e.g. 10,000
//!   sessions from `tools/gen-stores.py`), the time to the first frame, to
//!   the first frame listing a session, to the end of listing and to the
//!   last title read.
//! - **Keys while a large preview loads**: on a store of ~300 MB sessions
//!   (`PICKER_BIG`), the first is highlighted (its preview starts on the
//!   pool), then the second (a second preview on the other pool thread),
//!   then keys are typed every 20 ms; each key's latency is the time from
//!   posting it to the end of the frame drawn after it. The same keys are
//!   timed again once the previews are done.
//!
//! Not a criterion bench: each run is one picker session with its own
//! timeline. `cargo bench --bench picker` (both stores must exist; see
//! BENCHMARKS.md for the commands that make them).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use ratatui::Terminal;

use session_ref::config::PickFormat;
use session_ref::tui::driver::{self, Driver, Host, Msg};
use session_ref::tui::model::{Setup, State};
use session_ref::tui::theme::Theme;
use session_ref_core::candidates::Target;
use session_ref_core::uri;
use session_ref_engine::rank::EntryId;
use session_ref_engine::{Engine, Limits};
use session_ref_stores::model::SessionRecord;
use session_ref_stores::{Caches, Catalog, StoreRoots};

/// One drawn frame: when its flush ended, and the list's `shown/total`.
#[derive(Debug, Clone, Copy)]
struct Frame {
    at: Instant,
    listed: Option<(usize, usize)>,
}

/// A `TestBackend` that timestamps each flush and reads the list's counter
/// off the drawn buffer.
struct TimedBackend {
    inner: TestBackend,
    frames: Arc<Mutex<Vec<Frame>>>,
}

impl TimedBackend {
    /// The `N/M` counter on the filter line (the first row holding one).
    fn listed(&self) -> Option<(usize, usize)> {
        let buffer = self.inner.buffer();
        let width = buffer.area.width as usize;
        let text: String = buffer.content.iter().map(Cell::symbol).collect();
        let rows: Vec<&str> = (0..buffer.area.height as usize)
            .filter_map(|row| text.get(row * width..(row + 1) * width))
            .collect();
        rows.iter().find_map(|row| {
            row.split_whitespace().find_map(|word| {
                let (shown, total) = word.split_once('/')?;
                Some((shown.parse().ok()?, total.parse().ok()?))
            })
        })
    }
}

impl Backend for TimedBackend {
    type Error = <TestBackend as Backend>::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }
    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.hide_cursor()
    }
    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.show_cursor()
    }
    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.inner.set_cursor_position(position)
    }
    fn clear(&mut self) -> Result<(), Self::Error> {
        self.inner.clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(clear_type)
    }
    fn size(&self) -> Result<Size, Self::Error> {
        self.inner.size()
    }
    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.inner.window_size()
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.inner.flush()?;
        let frame = Frame {
            at: Instant::now(),
            listed: self.listed(),
        };
        self.frames.lock().unwrap().push(frame);
        Ok(())
    }
}

/// Titles read as jobs on rayon's pool, 256 at a time, as the picker does;
/// counts what is left to read.
struct PoolHost {
    tx: Sender<Msg>,
    caches: Arc<Caches>,
    unread: Arc<AtomicUsize>,
}

impl Host for PoolHost {
    fn edit(&mut self, text: &str) -> Result<String, String> {
        Ok(text.to_owned())
    }

    fn read_titles(
        &mut self,
        batch: Vec<(EntryId, SessionRecord)>,
    ) -> Option<Vec<(EntryId, Option<String>)>> {
        let caches = Arc::clone(&self.caches);
        let unread = Arc::clone(&self.unread);
        unread.fetch_add(batch.len(), Ordering::SeqCst);
        driver::spawn_job(self.tx.clone(), move |tx| {
            for chunk in batch.chunks(256) {
                let _ = tx.send(Msg::Activity(driver::read_activity(&caches, chunk)));
                let _ = tx.send(Msg::Titles(driver::read_titles(&caches, chunk)));
                unread.fetch_sub(chunk.len(), Ordering::SeqCst);
            }
        });
        None
    }
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Msg {
    Msg::Input(Event::Key(KeyEvent::new(code, modifiers)))
}

fn setup(query: &str, caches: &Arc<Caches>) -> Setup {
    Setup {
        limits: Limits::default(),
        target: Target {
            session_id: None,
            cwd: Some("/home/dev/p0".into()),
        },
        format: PickFormat::Text,
        query: query.to_owned(),
        prompt: String::new(),
        now: 1_780_000_000,
        home: Some("/home/dev".into()),
        theme: Theme { color: true },
        empty_hint: "no sessions found".into(),
        drafts: Vec::new(),
        caches: Arc::clone(caches),
        search_index: None,
        preview_window: Default::default(),
    }
}

/// A running picker over `dir`: its channel, its frames, what is unread,
/// when listing ended, and the thread running the loop.
struct Run {
    tx: Sender<Msg>,
    frames: Arc<Mutex<Vec<Frame>>>,
    unread: Arc<AtomicUsize>,
    listed_at: Arc<Mutex<Option<Instant>>>,
    started: Instant,
    picker: std::thread::JoinHandle<()>,
}

/// Start the picker on `dir` with `query` in the filter; listing starts
/// at once, as `session-ref` starts it.
fn start(dir: PathBuf, query: &str) -> Run {
    let caches = Arc::new(Caches::default());
    let (tx, rx) = crossbeam_channel::unbounded();
    let frames = Arc::new(Mutex::new(Vec::new()));
    let unread = Arc::new(AtomicUsize::new(0));
    let listed_at = Arc::new(Mutex::new(None));
    let started = Instant::now();
    let roots = StoreRoots::new().with(session_ref_stores::kinds::native::KIND, dir);
    let (scan_caches, scan_listed) = (Arc::clone(&caches), Arc::clone(&listed_at));
    driver::spawn_job(tx.clone(), move |tx| {
        // As the picker lists: titles and activity read with each record.
        driver::discover(&scan_caches, &roots, tx);
        *scan_listed.lock().unwrap() = Some(Instant::now());
    });
    let backend = TimedBackend {
        inner: TestBackend::new(160, 48),
        frames: Arc::clone(&frames),
    };
    let host = PoolHost {
        tx: tx.clone(),
        caches: Arc::clone(&caches),
        unread: Arc::clone(&unread),
    };
    let state = State::new(setup(query, &caches));
    let channel = (tx.clone(), rx);
    let target = state_target();
    let picker = std::thread::spawn(move || {
        let terminal = Terminal::new(backend).expect("a test terminal");
        let driver = Driver::new(terminal, host, state, channel, Limits::default(), target);
        driver.run().expect("the picker runs");
    });
    Run {
        tx,
        frames,
        unread,
        listed_at,
        started,
        picker,
    }
}

fn state_target() -> Target {
    Target {
        session_id: None,
        cwd: Some("/home/dev/p0".into()),
    }
}

impl Run {
    fn frames(&self) -> Vec<Frame> {
        self.frames.lock().unwrap().clone()
    }

    /// Wait until listing has ended and every title is read.
    fn wait_listed(&self) -> (Instant, Instant) {
        loop {
            let listed = *self.listed_at.lock().unwrap();
            if let Some(listed) = listed {
                // Titles are asked for as discovery batches arrive.
                std::thread::sleep(Duration::from_millis(50));
                if self.unread.load(Ordering::SeqCst) == 0 {
                    return (listed, Instant::now());
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Post `msg` and return when the frame drawn after it was flushed.
    fn latency(&self, msg: Msg) -> Duration {
        let before = self.frames.lock().unwrap().len();
        let sent = Instant::now();
        self.tx.send(msg).expect("the picker is running");
        loop {
            let frames = self.frames.lock().unwrap();
            if let Some(frame) = frames[before..].iter().find(|f| f.at >= sent) {
                return frame.at - sent;
            }
            drop(frames);
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn stop(self) {
        let _ = self.tx.send(key(KeyCode::Esc, KeyModifiers::NONE));
        self.picker.join().expect("the picker thread ends");
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn first_frame(dir: PathBuf) {
    let run = start(dir.clone(), "");
    let (listed, titled) = run.wait_listed();
    // The frame after the last title.
    std::thread::sleep(Duration::from_millis(100));
    let frames = run.frames();
    let started = run.started;
    run.stop();
    let first = frames.first().map(|f| f.at - started);
    let first_listing = frames
        .iter()
        .find(|f| f.listed.is_some_and(|(shown, _)| shown > 0))
        .map(|f| (f.at - started, f.listed));
    let total = frames.last().and_then(|f| f.listed);
    println!("store {}", dir.display());
    println!(
        "  first frame           {:>8.1} ms",
        first.map_or(f64::NAN, ms)
    );
    if let Some((at, listed)) = first_listing {
        println!(
            "  first frame listing   {:>8.1} ms   ({listed:?} shown/total)",
            ms(at)
        );
    }
    println!("  listing done          {:>8.1} ms", ms(listed - started));
    println!(
        "  titles done           {:>8.1} ms   ({} frames, last {total:?})",
        ms(titled - started),
        frames.len()
    );
}

/// Percentiles of `latencies` in ms: median, 99th, max.
fn summary(mut latencies: Vec<Duration>) -> String {
    latencies.sort();
    let at = |q: f64| ms(latencies[((latencies.len() - 1) as f64 * q).round() as usize]);
    format!(
        "{} keys: median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        latencies.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    )
}

/// Keys typed every 20 ms for `span`: a character, then backspace.
fn type_for(run: &Run, span: Duration) -> Vec<Duration> {
    let until = Instant::now() + span;
    let mut out = Vec::new();
    let mut typed = false;
    while Instant::now() < until {
        let msg = if typed {
            key(KeyCode::Backspace, KeyModifiers::NONE)
        } else {
            key(KeyCode::Char('0'), KeyModifiers::NONE)
        };
        typed = !typed;
        out.push(run.latency(msg));
        std::thread::sleep(Duration::from_millis(20));
    }
    out
}

fn keys_during_preview(dir: PathBuf) {
    // How long one preview of the first session takes (the same call).
    let roots = StoreRoots::new().with(session_ref_stores::kinds::native::KIND, dir.clone());
    let catalog = Catalog::load(&roots);
    let first = catalog.ordered().map(|r| r.id.clone()).min();
    let Some(first) = first else {
        println!("no sessions in {}", dir.display());
        return;
    };
    let engine = Engine::new(Arc::new(catalog), Limits::default(), state_target());
    let began = Instant::now();
    let preview = engine.preview(&uri::encode(&first), None);
    let alone = began.elapsed();
    println!("store {}", dir.display());
    println!(
        "  one preview of {first}: {:.0} ms ({})",
        ms(alone),
        if preview.is_ok() { "ok" } else { "failed" }
    );

    // The query lists the large sessions; the first is highlighted.
    let prefix = &first[..first.len().saturating_sub(1)];
    let run = start(dir, prefix);
    run.wait_listed();
    // Its preview starts; then the second's, on the other pool thread.
    std::thread::sleep(Duration::from_millis(100));
    run.latency(key(KeyCode::Down, KeyModifiers::NONE));
    std::thread::sleep(Duration::from_millis(100));
    run.latency(key(KeyCode::Up, KeyModifiers::NONE));
    let loading = type_for(&run, alone.mul_f64(0.8));
    println!("  while two previews load: {}", summary(loading));
    // Past the previews (both pool threads free again).
    std::thread::sleep(alone.mul_f64(1.5));
    let idle = type_for(&run, Duration::from_secs(2));
    println!("  once they are done:      {}", summary(idle));
    run.stop();
}

fn main() {
    // `cargo bench` passes `--bench`; a filter is not used here.
    let store = std::env::var_os("PICKER_STORE").map(PathBuf::from);
    let big = std::env::var_os("PICKER_BIG").map(PathBuf::from);
    if store.is_none() && big.is_none() {
        println!("set PICKER_STORE and/or PICKER_BIG (see BENCHMARKS.md)");
    }
    if let Some(dir) = store {
        first_frame(dir);
    }
    if let Some(dir) = big {
        keys_during_preview(dir);
    }
}
