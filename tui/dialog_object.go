package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/scheduler/why"
)

// objectDialog is the what-if on any object: an object named
// KIND/NAMESPACE/NAME (the selected node, the pod in view, or any typed)
// is loaded as YAML from the cluster as the focused attempt saw it, to
// edit (a pod's nodeName moves it); ctrl+s re-runs the attempt with the
// YAML's objects added or replacing theirs, ctrl+x without the object
// named, ctrl+n with a node cloned from the named node's group (with its
// DaemonSet pods). A parse error shows in the dialog, the text kept.
type objectDialog struct {
	c *Common
	b *Backend
	inputs
	yaml textarea.Model
	// onYAML: the keys go to the YAML, else to the reference.
	onYAML bool
	err    string
	w, h   int
}

func newObjectDialog(c *Common, b *Backend, ref string) *objectDialog {
	d := &objectDialog{c: c, b: b, inputs: newInputs(c, [2]string{"object: ", "KIND/NAMESPACE/NAME or KIND/NAME"}), yaml: textarea.New()}
	d.in[0].SetValue(ref)
	d.yaml.ShowLineNumbers = false
	d.yaml.CharLimit = 0
	d.yaml.MaxHeight = 0
	s := textarea.DefaultStyles(c.St.Dark)
	s.Cursor.Blink = false
	d.yaml.SetStyles(s)
	return d
}

func (d *objectDialog) Init() tea.Cmd { return nil }
func (d *objectDialog) Title() string { return "what-if object editor" }
func (d *objectDialog) Inline() bool  { return false }
func (d *objectDialog) SetSize(w, h int) {
	d.w, d.h = w, h
	d.setWidth(max(10, w-20))
	d.yaml.SetWidth(max(10, w-8))
	d.yaml.SetHeight(max(3, h-12))
}

// Open loads the object named, if any.
func (d *objectDialog) Open() tea.Cmd {
	if d.c.focused() == nil {
		d.c.post(errorStatus("no attempt to re-run"), closeDialogMsg{})
		return nil
	}
	d.restyle()
	if d.in[0].Value() != "" && d.load() {
		return d.focusYAML(true)
	}
	return d.focusYAML(false)
}

func (d *objectDialog) focusYAML(on bool) tea.Cmd {
	d.onYAML = on
	if on {
		d.in[0].Blur()
		return d.yaml.Focus()
	}
	d.yaml.Blur()
	return d.in[0].Focus()
}

// fork is the cluster as the focused attempt saw it, or an error to show.
func (d *objectDialog) fork() (*forkResult, bool) {
	f := d.c.Forks[d.c.Focus]
	switch {
	case f == nil:
		d.err = "the cluster as the attempt saw it is still being computed: try again"
	case f.err != nil:
		d.err = f.err.Error()
	default:
		return f, true
	}
	return nil, false
}

// ref is the object named, or false with the error set.
func (d *objectDialog) ref() (why.Ref, bool) {
	r, err := why.ParseRef(strings.TrimSpace(d.in[0].Value()))
	if err != nil {
		d.err = err.Error()
		return r, false
	}
	return r, true
}

// target is the object named and the cluster to find it in, or false
// with the error set.
func (d *objectDialog) target() (why.Ref, *forkResult, bool) {
	r, ok := d.ref()
	if !ok {
		return r, nil, false
	}
	f, ok := d.fork()
	return r, f, ok
}

// load puts the object named into the editor as YAML.
func (d *objectDialog) load() bool {
	r, f, ok := d.target()
	if !ok {
		return false
	}
	obj := why.Lookup(f.sched, r)
	if obj == nil {
		d.err = r.String() + ": no such object in the cluster as the attempt saw it (to add one, type its YAML)"
		return false
	}
	return d.setYAML(obj)
}

// setYAML puts objects into the editor, one YAML document each.
func (d *objectDialog) setYAML(objs ...any) bool {
	var docs []string
	for _, o := range objs {
		b, err := yaml.Marshal(why.APIObject(o))
		if err != nil {
			d.err = err.Error()
			return false
		}
		docs = append(docs, string(b))
	}
	d.yaml.SetValue(strings.Join(docs, "---\n"))
	d.yaml.MoveToBegin()
	d.err = ""
	return true
}

// cloneNode fills the editor with a node like the one named, and the
// DaemonSet pods it would run.
func (d *objectDialog) cloneNode() bool {
	r, f, ok := d.target()
	if !ok {
		return false
	}
	n, _ := why.Lookup(f.sched, r).(*v1.Node)
	if r.Kind != "Node" || n == nil {
		d.err = "ctrl+n clones a node: name one (Node/NAME)"
		return false
	}
	return d.setYAML(why.NodeLike(why.Input{Sched: f.sched, DaemonSets: d.b.DaemonSets}, n)...)
}

// run re-runs the attempt with edits, closing the dialog.
func (d *objectDialog) run(edits why.Edits) {
	d.c.post(closeDialogMsg{}, runObjectWhatIfMsg{edits})
}

func (d *objectDialog) Update(msg tea.Msg) tea.Cmd {
	kmsg, ok := dialogKey(d.c, d, msg)
	if !ok {
		return nil
	}
	k := d.c.Keys
	switch {
	case key.Matches(kmsg, k.Close):
		closeDialog(d.c)
	case key.Matches(kmsg, k.EditorField):
		return d.focusYAML(!d.onYAML)
	case key.Matches(kmsg, k.EditorApply):
		if d.b.ParseObjects == nil {
			d.err = "this session cannot read objects"
			return nil
		}
		objs, err := d.b.ParseObjects("editor", []byte(d.yaml.Value()))
		if err != nil {
			d.err = err.Error()
			return nil
		}
		d.run(why.Edits{Objects: objs})
	case key.Matches(kmsg, k.EditorRemove):
		if r, ok := d.ref(); ok {
			d.run(why.Edits{Remove: []why.Ref{r}})
		}
	case key.Matches(kmsg, k.EditorClone):
		if d.cloneNode() {
			return d.focusYAML(true)
		}
	case !d.onYAML && key.Matches(kmsg, k.Enter):
		if d.load() {
			return d.focusYAML(true)
		}
	case d.onYAML:
		var cmd tea.Cmd
		d.yaml, cmd = d.yaml.Update(kmsg)
		return cmd
	default:
		return d.update(0, kmsg)
	}
	return nil
}

func (d *objectDialog) View() string {
	d.restyle()
	st := d.c.St
	title, ok := attemptTitle(d.c, "What-if on any object")
	if !ok {
		return ""
	}
	out := []string{title, "",
		"Edit the YAML (several objects: ---) and press ctrl+s: the attempt is re-run on a copy of the cluster as it was, with them added or replacing theirs.",
		d.in[0].View(), d.yaml.View()}
	if d.err != "" {
		out = append(out, st.StatusErr.Render(fit("error: "+d.err, max(10, d.w-4))))
	}
	out = append(out, st.Dim.Render("enter loads the object named · tab object/YAML · ctrl+s re-run with the YAML · ctrl+x re-run without the object named · ctrl+n a node like the one named · esc cancels"))
	return strings.Join(out, "\n")
}

func (d *objectDialog) ShortHelp() []key.Binding {
	k := d.c.Keys
	return []key.Binding{k.EditorApply, k.EditorRemove, k.EditorClone, k.EditorField, withHelp(k.Close, "esc", "cancel"), k.DialogHelp}
}

func (d *objectDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }
