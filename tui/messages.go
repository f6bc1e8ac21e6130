package tui

import (
	"github.com/schedtui/schedtui/scheduler/why"

	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/schedtui/schedtui/scheduler/engine"
)

// Messages. Components ask for things by messages (emitted as Cmds, or
// posted for the same Update, see Common.post); async results come back as
// messages, routed to the component that asked.
type (
	// To the session: the engine's results and requests to drive it.
	engineMsg struct {
		w    *world
		note note
		err  error
		// right is compare mode's second side, synced after the op.
		right *rightWorld
	}
	// compareWithMsg asks for a second side (the C dialog);
	// comparisonMsg brings it, built.
	compareWithMsg struct{ side string }
	comparisonMsg  struct {
		cmp *Comparison
		err error
	}
	// forkMsg and diagMsg: f and d are nil when a rewind replaced the
	// attempt before they were computed.
	forkMsg struct {
		ref attemptRef
		f   *forkResult
	}
	diagMsg struct {
		ref  attemptRef
		fork *forkResult
		d    *diagResult
	}
	sourceMsg struct {
		batch  []SourceStatus
		closed bool
	}
	// liveMsg is the engine's state captured after live changes.
	liveMsg struct{ w *world }
	// runMsg runs op on the engine, after the running one if any;
	// cancel, when set, makes op stop early (esc, Ctrl-C); longMsg
	// continues to breakpoints in chunks (progress.go).
	runMsg struct {
		label  string
		op     func() note
		cancel context.CancelFunc
	}
	longMsg struct{ op *longOp }
	// note is what an operation tells the status line; about the
	// attempt at the cursor, or about the engine (stopped, rewound).
	note struct {
		text    string
		attempt bool
		// firstMember: when the attempt made closes a pod-group cycle,
		// focus the cycle's first member (n steps through the rest).
		firstMember bool
	}
	needDiagMsg     struct{ attempt int }
	openPodMsg      struct{ pod string }
	focusAttemptMsg struct {
		attempt int
		view    viewID
	}
	toggleBreakpointMsg struct{ bp engine.Breakpoint }
	removeBreakpointMsg struct{ i int }
	runWhatIfMsg        struct{ edit whatIfEdit }
	runObjectWhatIfMsg  struct{ edits why.Edits }

	// To the root: navigation, dialogs, view refreshes.
	routed struct {
		to  viewID
		msg tea.Msg
	}
	goToMsg struct {
		view     viewID
		remember bool // push the current view on the back history
	}
	// stateMsg: what a view derives from Common changed (allViews: every
	// view's).
	stateMsg      struct{ view viewID }
	openNodeMsg   struct{ node string }
	openWhatIfMsg struct{}
	// openSearchMsg opens the search prompt (from a view that filters).
	openSearchMsg struct{}
	// openDialogMsg pushes a dialog on the stack; closeDialogMsg pops the
	// top one. Only the top dialog gets keys.
	openDialogMsg  struct{ d dialog }
	closeDialogMsg struct{}

	// To the status bar.
	statusMsg struct {
		text string
		err  bool
		// attempt is the attempt the note is about, -1 for none.
		attempt int
	}
	busyMsg struct{ label string }

	// To views (searchMsg to the status bar and the search prompt too):
	// the search of one view; each view keeps its own.
	searchMsg struct {
		view viewID
		q    string
	}
	selectNodeMsg    struct{ node string }
	whatIfStartedMsg struct{}
	whatIfMsg        struct{ res *whatIfResult }
)

// errorStatus is an error for the status line, about no attempt.
func errorStatus(text string) statusMsg { return statusMsg{text: text, err: true, attempt: -1} }

// allViews in a stateMsg means every view.
const allViews = numViews
