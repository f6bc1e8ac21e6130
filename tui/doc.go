// Package tui is schedtui's interactive debugger: a Bubble Tea program
// that steps the scheduler's queue engine attempt by attempt (or phase by
// phase), rewinds it, and shows what each attempt saw and decided in eight
// views. cmd/schedtui builds a Backend (backend.go: the engine, the
// scheduler at the cursor, forks of the cluster as an attempt saw it, and,
// on a live cluster, the Source and the clock) and calls Run.
//
// # The root and its components
//
// Model (model.go) is the root. It owns nothing but routing and layout:
// a key goes first to the session (a long operation's cancel, or held as
// typed ahead while the engine is busy), then to the top dialog, then to
// the global bindings (n, s, c, u, b, w, e, ?, C, tab, 1-8, esc, q), and
// otherwise to the active view; clicks go to the header's tabs or the
// active view. The frame is the header (two lines), the body (the active
// view, with the teaching pane beside it from 130 columns, under it
// below) and the status bar (two lines).
//
// Every part of the screen is a component (component.go): it renders
// exactly its rectangle, takes its size from the root and lists its keys
// for the help (keys.go holds every binding). Components read Common, the
// state they share (the captured world, the focused attempt, the cached
// forks, diagnoses and hints, the active view), and never write it: they
// ask by messages (messages.go), which Common.post queues for the same
// Update or a Cmd delivers later.
//
//   - Views, one per tab, one file each: view_queues.go (Queues),
//     view_attempt.go (Pod: the verdict and hints, from why.go, then the
//     attempt's timeline, one document that scrolls), view_filter.go (the
//     Filter map), view_scores.go (Scores), view_preempt.go (Preempt), view_nodes.go (Nodes, with devices.go for
//     DRA), view_events.go (Events), and whatif.go (What-if); group.go
//     is what the Queues, Pod and Preempt views show of pod groups (a
//     group's queue entry, its cycle's verdict, hints and members × nodes,
//     its preemption's victims) and the stepping over a group cycle's
//     members' recorded attempts (n, { and }). They draw
//     through list.go and grid.go (a virtualised table: only the visible
//     cells are formatted), format.go and styles.go. explain.go is the
//     teaching pane's text for a Filter or Score cell.
//   - Dialogs (dialog.go, dialog_*.go) are overlays stacked on the root:
//     the top one has the keys; each is opened and closed by a message.
//     Breakpoints, the what-if form, the help, the search prompt, the
//     compare side prompt (C) and an observation of the cluster's
//     scheduler set beside schedtui's attempt (dialog_observed.go).
//   - The chrome (chrome.go): the header (source, focused attempt,
//     breakpoints, queue counts, the tabs) and the status bar (notes,
//     progress, what is kept, the keys).
//   - schedtui learn's lesson (lesson.go, the tour in lessons.go): a
//     banner between the header and the body with the question, the keys
//     and the answer prompt (A, which ? then lists); the root checks it
//     after every update against the state and the active view's
//     teaching pane.
//
// # The session
//
// The session (session.go) drives the engine for the root. It runs one
// operation at a time in a tea.Cmd under the backend's lock, queues what
// arrives meanwhile and applies it in order afterwards, and after each
// operation captures the engine's state as a world (world.go), which the
// views read while the next operation runs. In the background it computes
// each focused attempt's fork, full diagnosis and proven hints (fork.go,
// why.go), dropping a result whose attempt a rewind replaced. Long
// operations (continue, a rewind) run in chunks with a progress bar and
// can be cancelled (progress.go). It also follows a live source: changes
// as they arrive, the wall clock every second (clock.go), forecasts on a
// fork of the live mirror (forecast.go); compare mode's second engine
// (compare.go); and what the engine keeps of the past (retention.go).
//
// The tests drive the real model through a harness (harness_test.go) on
// the embedded demo; the golden screens are in testdata.
package tui
