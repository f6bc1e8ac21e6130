package snapshot

// Reading recordings (see recording.go for the format): the initial state
// goes through the Loader like any snapshot; every change's object is
// decoded, defaulted, validated and admitted as the Loader does it for a
// snapshot's objects, against the cluster as the recording has it so far
// (priority classes, runtime classes, storage classes).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/extender"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// RecordedChange is one change of a recording: a watch event of an
// object, at the time it arrived. Object is typed, defaulted and admitted
// as a snapshot's objects are; for DELETED it is the object's last state.
type RecordedChange struct {
	Time   time.Time
	Type   watch.EventType
	Object runtime.Object
	// File and Line locate the change's document.
	File string
	Line int
}

// openRecordingFile opens path, a recording (detectFormat), with l, a new
// Loader (its meter and validation set). errNotRecording: its header
// turned out not to be a recording's, nothing is loaded.
func openRecordingFile(path string, l *Loader) (*Opened, error) {
	data, err := l.budget.read(path)
	if err != nil {
		return nil, err
	}
	l.meter.setTotal(int64(len(data)))
	l.meter.startFile(int64(len(data)))
	return readRecording(path, data, l)
}

// ReadRecording reads a recording already in memory; name is used in
// problems. The Opened has the initial state as Cluster, Format
// FormatRecording, the Header (RecordingStarted set), and the Changes.
// Problems with single changes are in the Report (the change is left
// out); a recording cut short is read up to the last complete change,
// with a warning. The error means the initial state could not be read.
func ReadRecording(name string, data []byte) (*Opened, error) {
	return readRecording(name, data, NewLoader())
}

// readRecording is ReadRecording with l, a new Loader (its meter, budget
// and validation set).
func readRecording(name string, data []byte, l *Loader) (*Opened, error) {
	parts, err := l.loadRecording(name, data)
	if errors.Is(err, errNotRecording) {
		return nil, &docread.ParseError{File: name, Msg: "not a recording: its header has no recording-started (schedtui record writes it)", Err: err}
	}
	if err != nil {
		return nil, err
	}
	c, r := l.Finish()
	o := &Opened{Cluster: c, Report: r, Format: FormatRecording}
	o.Config, o.ConfigSource = l.parseEmbeddedConfig()
	if o.Config != nil {
		o.ConfigData = l.configs[0].Data
	}
	o.Header = parts.header
	o.Changes, o.RecordedUntil = l.decodeChanges(name, parts, c)
	o.ExtenderAnswers = parts.answers
	r.Sort()
	l.meter.endFile()
	return o, nil
}

// loadRecordingInDirectory loads the initial state of a recording found
// in a directory, whose changes are not replayed there (a directory is
// one moment); false when the file is not a recording.
func (l *Loader) loadRecordingInDirectory(path string) bool {
	if !isRecordingFile(path) {
		return false
	}
	data, err := l.budget.read(path)
	if err != nil {
		l.reportSkippedFile(path, err)
		return true
	}
	l.meter.startFile(int64(len(data)))
	defer l.meter.endFile()
	// errNotRecording comes before anything is loaded.
	parts, err := l.loadRecording(path, data)
	if errors.Is(err, errNotRecording) {
		return false
	}
	if err != nil {
		l.reportSkippedFile(path, err)
		return true
	}
	l.report.Warnf(path, 0, "", "", "a recording: only its initial state is read as part of the directory, its %d change document(s) are not replayed (open the file itself to replay them)", len(parts.docs))
	return true
}

// recordingDoc is one document after the initial state.
type recordingDoc struct {
	line int
	json []byte
	// err: the document does not parse.
	err error
	// yaml: a YAML document (a cut can leave it well-formed but
	// incomplete).
	yaml bool
}

type recordingParts struct {
	header *Header
	docs   []recordingDoc
	// gzipErr says why a gzipped recording ends early.
	gzipErr error
	// answers are the ExtenderAnswer documents (decodeChanges).
	answers []RecordedExtenderAnswer
}

// loadRecording loads the initial state into l and splits off the
// change documents. errNotRecording: data has no recording header.
func (l *Loader) loadRecording(name string, data []byte) (*recordingParts, error) {
	parts := &recordingParts{}
	if docread.IsGzip(data) {
		plain, err := l.budget.gunzip(name, data, true)
		var pe *docread.ParseError
		if errors.As(err, &pe) {
			return nil, err
		}
		if err != nil && len(plain) == 0 {
			return nil, &docread.ParseError{File: name, Msg: err.Error(), Err: err}
		}
		data, parts.gzipErr = plain, err
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if firstByte(data) == '{' {
		return parts, l.loadJSONRecording(name, data, parts)
	}
	return parts, l.loadYAMLRecording(name, data, parts)
}

func (l *Loader) loadJSONRecording(name string, data []byte, parts *recordingParts) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		// The loader locates the syntax error.
		if lerr := l.LoadData(name, data); lerr != nil {
			return lerr
		}
		return &docread.ParseError{File: name, Line: 1, Msg: "JSON syntax error in the initial state: " + err.Error(), Err: err}
	}
	h, ok := listHeader(first)
	if !ok || !h.IsRecording() {
		return errNotRecording
	}
	end := int(dec.InputOffset())
	// The initial state's share of the file, then the changes'.
	initial := float64(end) / float64(len(data))
	l.meter.step(0, initial)
	if err := l.LoadData(name, data[:end]); err != nil {
		return err
	}
	l.meter.step(initial, 1)
	parts.header = h
	line := 1 + bytes.Count(data[:end], []byte("\n"))
	rest := data[end:]
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		seg := rest
		if i >= 0 {
			seg, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if t := bytes.TrimSpace(seg); len(t) > 0 {
			d := recordingDoc{line: line, json: t}
			if !json.Valid(t) {
				d.err = errors.New("not one complete JSON object")
			}
			parts.docs = append(parts.docs, d)
		}
		line++
	}
	return nil
}

// recordingDocRE matches the top-level line of a YAML document that marks
// it as a recording document.
var recordingDocRE = regexp.MustCompile(`^(apiVersion:\s*["']?` + regexp.QuoteMeta(RecordingAPIVersion) + `["']?|kind:\s*["']?(` +
	RecordedChangeKind + `|` + RecordingEndKind + `|` + ExtenderAnswerKind + `)["']?)\s*(#.*)?$`)

// yamlSeparator reports a "---" document separator line (as splitYAML
// takes it: "---" followed by nothing but spaces or a comment).
func yamlSeparator(l []byte) bool {
	if !bytes.HasPrefix(l, []byte("---")) {
		return false
	}
	rest := strings.TrimSpace(string(l[3:]))
	return rest == "" || rest[0] == '#'
}

func (l *Loader) loadYAMLRecording(name string, data []byte, parts *recordingParts) error {
	h, _, ok := headerFromComment(data)
	if !ok || !h.IsRecording() {
		return errNotRecording
	}
	parts.header = h
	// Split into documents: (offset of the separator, first line of the
	// document, its text).
	type chunk struct {
		sep, start, line int
		change           bool
	}
	var chunks []chunk
	cur := chunk{sep: 0, start: 0, line: 1}
	line := 1
	for off := 0; off < len(data); {
		next := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		l := bytes.TrimRight(data[off:next], "\r\n")
		switch {
		case yamlSeparator(l):
			chunks = append(chunks, cur)
			cur = chunk{sep: off, start: next, line: line + 1}
		case recordingDocRE.Match(l):
			cur.change = true
		}
		off = next
		line++
	}
	chunks = append(chunks, cur)
	boundary := len(data)
	firstChange := len(chunks)
	for i, c := range chunks {
		if c.change && i > 0 {
			boundary, firstChange = c.sep, i
			break
		}
	}
	// The initial state's share of the file, then the changes': half to
	// convert them to JSON here, half to decode them (decodeChanges).
	initial := float64(boundary) / float64(len(data))
	converted := (initial + 1) / 2
	l.meter.step(0, initial)
	if err := l.LoadData(name, data[:boundary]); err != nil {
		return err
	}
	l.meter.step(initial, converted)
	defer l.meter.step(converted, 1)
	for i := firstChange; i < len(chunks); i++ {
		l.meter.report(float64(i-firstChange) / float64(len(chunks)-firstChange))
		c := chunks[i]
		end := len(data)
		if i+1 < len(chunks) {
			end = chunks[i+1].sep
		}
		text := data[c.start:end]
		first := contentLineOf(text, c.line)
		if first == 0 {
			continue
		}
		d := recordingDoc{line: first, yaml: true}
		js, err := yaml.YAMLToJSON(text)
		switch {
		case err != nil:
			d.err = errors.New(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "))
		case bytes.Equal(js, []byte("null")):
			continue
		default:
			d.json = js
		}
		parts.docs = append(parts.docs, d)
	}
	return nil
}

// contentLineOf is the line of text's first line that is neither blank
// nor a comment (text starts at line first), or 0.
func contentLineOf(text []byte, first int) int {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), len(text)+1)
	for n := first; sc.Scan(); n++ {
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) > 0 && t[0] != '#' {
			return n
		}
	}
	return 0
}

// admissionState is the cluster as far as the recording has got, for the
// admission of the changes' objects.
type admissionState struct {
	priorityClasses []*schedulingv1.PriorityClass
	runtimeClasses  map[string]*nodev1.RuntimeClass
	storageClasses  []*storagev1.StorageClass
}

func newAdmissionState(c *Cluster) *admissionState {
	st := &admissionState{runtimeClasses: map[string]*nodev1.RuntimeClass{},
		priorityClasses: append([]*schedulingv1.PriorityClass(nil), c.PriorityClasses...),
		storageClasses:  append([]*storagev1.StorageClass(nil), c.StorageClasses...)}
	for _, rc := range c.RuntimeClasses {
		st.runtimeClasses[rc.Name] = rc
	}
	return st
}

// track applies a change of a class to the state.
func (st *admissionState) track(typ watch.EventType, obj runtime.Object) {
	deleted := typ == watch.Deleted
	switch o := obj.(type) {
	case *schedulingv1.PriorityClass:
		st.priorityClasses = replaceNamed(st.priorityClasses, o, deleted)
	case *storagev1.StorageClass:
		st.storageClasses = replaceNamed(st.storageClasses, o, deleted)
	case *nodev1.RuntimeClass:
		if deleted {
			delete(st.runtimeClasses, o.Name)
		} else {
			st.runtimeClasses[o.Name] = o
		}
	}
}

func replaceNamed[T metav1.Object](list []T, o T, deleted bool) []T {
	out := make([]T, 0, len(list)+1)
	for _, x := range list {
		if x.GetName() != o.GetName() {
			out = append(out, x)
		}
	}
	if !deleted {
		out = append(out, o)
	}
	return out
}

var recordedTypes = []string{string(watch.Added), string(watch.Modified), string(watch.Deleted)}

// decodeChanges decodes the change documents, reporting the bad ones; it
// returns the changes, with times that never go back, and the end of the
// recording (zero when it was cut short).
func (l *Loader) decodeChanges(name string, parts *recordingParts, c *Cluster) ([]RecordedChange, time.Time) {
	var out []RecordedChange
	st := newAdmissionState(c)
	prev := parts.header.RecordingStarted
	var until time.Time
	endLine := 0
	cut := false
	for i, d := range parts.docs {
		l.meter.report(float64(i) / float64(len(parts.docs)))
		last := i == len(parts.docs)-1
		// A damaged last document of a recording without an end is most
		// likely where the recorder was killed.
		damaged := func(desc, format string, args ...any) {
			msg := fmt.Sprintf(format, args...)
			if last && (d.yaml || d.err != nil) {
				cut = true
				l.report.Warnf(name, d.line, desc, "", "%s: the recording was cut short here (the recorder was interrupted?); this last change is ignored", msg)
				return
			}
			l.report.Errorf(name, d.line, desc, "", "%s; the change is skipped", msg)
		}
		if endLine > 0 {
			l.report.Errorf(name, d.line, "", "", "a document after the end of the recording (%s at line %d); it is ignored", RecordingEndKind, endLine)
			continue
		}
		if d.err != nil {
			damaged("", "%v", d.err)
			continue
		}
		if kind, ok := extenderAnswerKind(d.json); ok && kind {
			a, err := readExtenderAnswer(d.json)
			if err != nil {
				damaged("", "%s: %v", ExtenderAnswerKind, err)
				continue
			}
			if a.Time.Before(prev) {
				a.Time = prev
			}
			a.File, a.Line = name, d.line
			parts.answers = append(parts.answers, a)
			continue
		}
		env, fields, err := readEnvelope(d.json)
		if err != nil {
			damaged("", "%v", err)
			continue
		}
		for _, f := range fields {
			l.report.Warnf(name, d.line, "", f, "unknown field (ignored)")
		}
		desc := ""
		if len(env.Object) > 0 {
			if h, err := docread.ReadHeader(env.Object); err == nil && h.Kind != "" {
				ns := h.Namespace
				if ki := supportedKinds[h.Kind]; ki != nil && ki.namespaced && ns == "" {
					ns = metav1.NamespaceDefault
				}
				desc = describe(h.Kind, ns, h.Name)
			}
		}
		if env.APIVersion != RecordingAPIVersion || (env.Kind != RecordedChangeKind && env.Kind != RecordingEndKind) {
			what := fmt.Sprintf("apiVersion %q, kind %q", env.APIVersion, env.Kind)
			if h, err := docread.ReadHeader(d.json); err == nil && h.Kind != "" && h.Name != "" {
				desc = describe(h.Kind, h.Namespace, h.Name)
			}
			damaged(desc, "not a recording document (%s): after the initial state a recording holds %s, %s and %s documents (apiVersion %s)",
				what, RecordedChangeKind, ExtenderAnswerKind, RecordingEndKind, RecordingAPIVersion)
			continue
		}
		t, err := parseRecordingTime(env.Time)
		if err != nil {
			damaged(desc, "%v", err)
			continue
		}
		if env.Kind == RecordingEndKind {
			if t.Before(prev) {
				t = prev
			}
			until, endLine = t, d.line
			continue
		}
		if !containsString(recordedTypes, env.Type) {
			fe := field.NotSupported(field.NewPath("type"), env.Type, recordedTypes)
			if env.Type == "" {
				fe = field.Required(field.NewPath("type"), "")
			}
			damaged(desc, "%s", fe.Error())
			continue
		}
		if len(env.Object) == 0 || bytes.Equal(env.Object, []byte("null")) {
			damaged(desc, "%s", field.Required(field.NewPath("object"), "the object the change is about").Error())
			continue
		}
		typ := watch.EventType(env.Type)
		switch {
		case t.Before(parts.header.RecordingStarted):
			l.report.Warnf(name, d.line, desc, "time", "%s is before the recording started (%s): applied at the start",
				formatRecordingTime(t), formatRecordingTime(parts.header.RecordingStarted))
			t = prev
		case t.Before(prev):
			l.report.Warnf(name, d.line, desc, "time", "%s is before the previous change (%s): applied right after it, in file order",
				formatRecordingTime(t), formatRecordingTime(prev))
			t = prev
		}
		obj := l.decodeChangeObject(name, d.line, env.Object, typ, t, st)
		if obj == nil {
			continue
		}
		st.track(typ, obj)
		prev = t
		out = append(out, RecordedChange{Time: t, Type: typ, Object: obj, File: name, Line: d.line})
	}
	if parts.gzipErr != nil {
		l.report.Warnf(name, 0, "", "", "%v: the recording is read up to where the data ends (the recorder was interrupted?)", parts.gzipErr)
	} else if endLine == 0 && !cut {
		at := 0
		if n := len(parts.docs); n > 0 {
			at = parts.docs[n-1].line
		}
		l.report.Warnf(name, at, "", "", "the recording has no end (%s): it was cut short (the recorder was interrupted?); its %d changes are replayed", RecordingEndKind, len(out))
	}
	return out, until
}

// envelope is a recording document's fields.
type envelope struct {
	APIVersion string
	Kind       string
	Time       string
	Type       string
	Object     json.RawMessage
}

// readEnvelope reads a recording document; it also returns the unknown
// fields, sorted.
func readEnvelope(data []byte) (envelope, []string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return envelope{}, nil, errors.New("the document is not an object: expected a " + RecordedChangeKind)
	}
	var env envelope
	var unknown []string
	str := func(key string, into *string) error {
		raw, ok := top[key]
		if !ok || bytes.Equal(raw, []byte("null")) {
			return nil
		}
		if err := json.Unmarshal(raw, into); err != nil {
			return fmt.Errorf("%s: must be a string", key)
		}
		return nil
	}
	for key, raw := range top {
		var err error
		switch key {
		case "apiVersion":
			err = str(key, &env.APIVersion)
		case "kind":
			err = str(key, &env.Kind)
		case "time":
			err = str(key, &env.Time)
		case "type":
			err = str(key, &env.Type)
		case "object":
			env.Object = raw
		default:
			unknown = append(unknown, key)
		}
		if err != nil {
			return envelope{}, nil, err
		}
	}
	sort.Strings(unknown)
	return env, unknown, nil
}

// extenderAnswerKind reports whether a recording document is an
// ExtenderAnswer (ok false: not an object with a string kind).
func extenderAnswerKind(data []byte) (isAnswer, ok bool) {
	var top struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if json.Unmarshal(data, &top) != nil {
		return false, false
	}
	return top.APIVersion == RecordingAPIVersion && top.Kind == ExtenderAnswerKind, true
}

// readExtenderAnswer reads an ExtenderAnswer document; unknown fields
// are refused (a recording is schedtui's own format).
func readExtenderAnswer(data []byte) (RecordedExtenderAnswer, error) {
	var d extenderAnswerDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return RecordedExtenderAnswer{}, err
	}
	t, err := parseRecordingTime(d.Time)
	if err != nil {
		return RecordedExtenderAnswer{}, err
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"extender", d.Extender}, {"verb", d.Verb}, {"pod", d.Pod}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return RecordedExtenderAnswer{}, fmt.Errorf("%s required", strings.Join(missing, ", "))
	}
	var latency time.Duration
	if d.Latency != "" {
		if latency, err = time.ParseDuration(d.Latency); err != nil {
			return RecordedExtenderAnswer{}, fmt.Errorf("latency: %w", err)
		}
	}
	if d.Error == "" && d.Status == 0 {
		return RecordedExtenderAnswer{}, errors.New("an answer needs a status or an error")
	}
	x := extender.Exchange{Extender: d.Extender, Verb: d.Verb, Pod: d.Pod, PodUID: d.PodUID, Nodes: d.Nodes, Status: d.Status,
		Error: d.Error, Latency: latency}
	if d.Body != "" {
		x.Body = []byte(d.Body)
	}
	return RecordedExtenderAnswer{Time: t, Exchange: x}, nil
}

func parseRecordingTime(s string) (time.Time, error) {
	p := field.NewPath("time")
	if s == "" {
		return time.Time{}, errors.New(field.Required(p, "when the change arrived (RFC 3339)").Error())
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, errors.New(field.Invalid(p, s, "must be an RFC 3339 time, e.g. 2026-01-01T10:40:00Z").Error())
	}
	return t.UTC(), nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// decodeChangeObject decodes a change's object as the loader decodes a
// snapshot's (addEncoded, addTyped, admission), reporting its problems;
// nil when it cannot be used. A deleted object only needs its identity:
// its spec is not validated nor admitted. An added object without a
// creationTimestamp was created at the change's time.
func (l *Loader) decodeChangeObject(file string, line int, data []byte, typ watch.EventType, at time.Time, st *admissionState) runtime.Object {
	h, err := docread.ReadHeader(data)
	if err != nil {
		l.report.Errorf(file, line, "", "object", "%v; the change is skipped", err)
		return nil
	}
	if h.Kind == "" {
		l.report.Errorf(file, line, "", "object.kind", "Required value: the object needs apiVersion and kind; the change is skipped")
		return nil
	}
	ki := supportedKinds[h.Kind]
	if ki == nil {
		what := "kind " + h.Kind
		if h.APIVersion != "" {
			what += " (apiVersion " + h.APIVersion + ")"
		}
		l.report.Warnf(file, line, describe(h.Kind, h.Namespace, h.Name), "object.kind", "%s is not read by schedtui; the change is skipped", what)
		return nil
	}
	ns := h.Namespace
	if !ki.namespaced {
		ns = ""
	} else if ns == "" {
		ns = metav1.NamespaceDefault
	}
	desc := describe(ki.kind, ns, h.Name)
	if h.APIVersion != ki.gv.String() {
		p := field.NewPath("object", "apiVersion")
		fe := field.NotSupported(p, h.APIVersion, []string{ki.gv.String()})
		if h.APIVersion == "" {
			fe = field.Required(p, "")
		}
		l.report.Errorf(file, line, desc, fe.Field, "%s; the change is skipped", fe.ErrorBody())
		return nil
	}
	obj, warnings, errs := decodeObject(ki, data)
	for _, w := range warnings {
		l.report.Warnf(file, line, desc, objectField(w.Field), "%s", w.Message)
	}
	for _, e := range errs {
		l.report.Errorf(file, line, desc, objectField(e.Field), "%s; the change is skipped", e.Message)
	}
	if obj == nil {
		return nil
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		l.report.Errorf(file, line, desc, "object.metadata", "%v; the change is skipped", err)
		return nil
	}
	if ki.namespaced {
		if acc.GetNamespace() == "" {
			acc.SetNamespace(metav1.NamespaceDefault)
		}
	} else if acc.GetNamespace() != "" {
		l.report.Warnf(file, line, desc, "object.metadata.namespace", "%s is cluster-scoped; namespace %q ignored", ki.kind, acc.GetNamespace())
		acc.SetNamespace("")
	}
	if acc.GetName() == "" {
		l.report.Errorf(file, line, desc, "object.metadata.name", "Required value: a change names the object it is about; the change is skipped")
		return nil
	}
	apiserver.DefaultUnder(obj, l.validation)
	if typ != watch.Deleted {
		if pod, ok := obj.(*v1.Pod); ok && !apiserver.IsStored(&pod.ObjectMeta) {
			apiserver.PrepareForCreate(pod)
		}
		l.warnDropped(file, line, desc, ki.kind, apiserver.DropDisabledFields(obj, l.validation))
		if ts := acc.GetCreationTimestamp(); typ == watch.Added && ts.IsZero() {
			acc.SetCreationTimestamp(metav1.NewTime(at))
		}
	}
	errList := apiserver.ValidateObjectMeta(acc, ki.namespaced, ki.nameFn)
	if typ != watch.Deleted {
		errList = append(errList, apiserver.Validate(obj, l.validation)...)
	}
	if len(errList) > 0 {
		for _, e := range docread.IssuesFromFieldErrors(errList) {
			l.report.Errorf(file, line, desc, objectField(e.Field), "%s; the change is skipped", e.Message)
		}
		return nil
	}
	if acc.GetUID() == "" {
		// As the loader derives it: an update names the same object as
		// the initial state's.
		acc.SetUID(deriveUID(ki.kind, acc.GetNamespace(), acc.GetName()))
	}
	if typ == watch.Deleted {
		return obj
	}
	switch o := obj.(type) {
	case *v1.Pod:
		l.changeOrigins[o] = l.at(file, line)
		if !l.admitPod(o, st.priorityClasses, st.runtimeClasses) {
			return nil
		}
	case *v1.PersistentVolumeClaim:
		apiserver.AdmitPersistentVolumeClaim(o, apiserver.DefaultStorageClass(st.storageClasses))
	}
	return obj
}

// objectField puts a field path of the object under "object.".
func objectField(f string) string {
	if f == "" {
		return "object"
	}
	return "object." + f
}
