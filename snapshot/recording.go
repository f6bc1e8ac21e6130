package snapshot

// Recordings (schedtui record): a snapshot of the initial state followed
// by every change the watch saw, with the time it arrived.
//
// The file is the capture Write produces (the header, as a comment in
// YAML or annotations on the List in JSON, now with recording-started,
// then one v1 List of the initial state), followed by one document per
// change and, when the recording ended cleanly, an end marker:
//
//	{"apiVersion":"schedtui.dev/v1","kind":"RecordedChange","time":"2026-01-01T10:40:00.123456789Z","type":"ADDED","object":{...}}
//	{"apiVersion":"schedtui.dev/v1","kind":"RecordingEnd","time":"2026-01-01T11:00:00Z"}
//
// In JSON every change is one line after the List, so a recording can be
// streamed and a recorder killed mid-write leaves a readable prefix (the
// reader warns about the cut last line); in YAML the documents are
// separated by "---" lines. type is the watch event type (ADDED, MODIFIED,
// DELETED; for DELETED the object is its last known state); object is the
// object with apiVersion and kind, without managedFields. Gzip (.gz) is
// one stream over the whole file, flushed at least every FlushInterval, so
// that an interrupted recording is readable up to the last flush.

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/scheduler/extender"
)

// The recording documents' apiVersion and kinds.
const (
	RecordingAPIVersion = "schedtui.dev/v1"
	RecordedChangeKind  = "RecordedChange"
	RecordingEndKind    = "RecordingEnd"
	ExtenderAnswerKind  = "ExtenderAnswer"
	// ExtenderAnswersRecorded is Header.ExtenderAnswers of a recording
	// that holds its extenders' answers.
	ExtenderAnswersRecorded = "recorded"
)

// RecordedExtenderAnswer is one call to a scheduler extender made while
// recording (an ExtenderAnswer document): the extender's URL prefix, the
// verb, the request's pod and the node names it was about, and the
// answer (an error before any answer, else the HTTP status and body).
type RecordedExtenderAnswer struct {
	extender.Exchange
	Time time.Time
	// File and Line locate the document.
	File string
	Line int
}

// extenderAnswerDoc is an ExtenderAnswer document; the field order is the
// JSON's. The body is kept as a string: an extender's answer need not be
// JSON.
type extenderAnswerDoc struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Time       string   `json:"time"`
	Extender   string   `json:"extender"`
	Verb       string   `json:"verb"`
	Pod        string   `json:"pod"`
	PodUID     string   `json:"podUID"`
	Nodes      []string `json:"nodes"`
	Status     int      `json:"status,omitempty"`
	Body       string   `json:"body,omitempty"`
	Error      string   `json:"error,omitempty"`
	Latency    string   `json:"latency"`
}

// FlushInterval bounds how long a gzipped recording keeps a change in
// the compressor before it reaches the file.
var FlushInterval = time.Second

// changeDoc is a recording document; the field order is the JSON's.
type changeDoc struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Time       string          `json:"time"`
	Type       string          `json:"type,omitempty"`
	Object     json.RawMessage `json:"object,omitempty"`
}

// RecordingWriter writes a recording as it happens. Its methods may be
// called from several goroutines (a watch adding changes, a ticker
// flushing).
type RecordingWriter struct {
	mu        sync.Mutex
	w         io.Writer // the destination, or zw over it
	zw        *gzip.Writer
	file      *os.File // set by CreateRecording, closed by Close
	yaml      bool
	dropEnv   bool // see EnvValuesDropped
	objects   int
	changes   int
	answers   int
	last      time.Time
	dirty     bool
	lastFlush time.Time
	err       error
	closed    bool
}

// NewRecordingWriter starts a recording on w: the header (which must have
// RecordingStarted set; CapturedAt defaults to it) and the initial state
// as Write writes them, in format f. Close ends it.
func NewRecordingWriter(w io.Writer, c *Cluster, h Header, f OutputFormat) (*RecordingWriter, error) {
	if !h.IsRecording() {
		return nil, errors.New("a recording's header needs its start time (RecordingStarted)")
	}
	if f.Protobuf {
		return nil, errors.New("a recording is written as YAML or JSON (.yaml, .yml, .json, optionally followed by .gz); protobuf (.pb) is for snapshots")
	}
	if h.CapturedAt.IsZero() {
		h.CapturedAt = h.RecordingStarted
	}
	rw := &RecordingWriter{w: w, yaml: f.YAML, dropEnv: h.EnvValues == EnvValuesDropped, last: h.RecordingStarted, lastFlush: time.Now()}
	if f.Gzip {
		rw.zw = gzip.NewWriter(w)
		rw.w = rw.zw
	}
	n, err := Write(rw.w, c, h, OutputFormat{YAML: f.YAML})
	if err != nil {
		return nil, err
	}
	rw.objects = n
	if err := rw.flushLocked(); err != nil {
		return nil, err
	}
	return rw, nil
}

// CreateRecording creates (or truncates) path and starts a recording in
// the format its name says (see OutputFormatFor). The file is written as
// the recording goes, not replaced at the end: whatever happens, it holds
// the recording up to the last flush. A new file gets the mode the umask
// leaves of 0666; a file truncated keeps its own.
func CreateRecording(path string, c *Cluster, h Header) (*RecordingWriter, error) {
	f, err := OutputFormatFor(path)
	if err != nil {
		return nil, err
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o666)
	if err != nil {
		return nil, err
	}
	rw, err := NewRecordingWriter(file, c, h, f)
	if err != nil {
		file.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rw.file = file
	return rw, nil
}

// Objects is the number of objects of the initial state.
func (rw *RecordingWriter) Objects() int { return rw.objects }

// Changes is the number of changes written so far.
func (rw *RecordingWriter) Changes() int {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.changes
}

// Add writes one change: a watch event (Added, Modified or Deleted) of
// obj, at time t. A t before the previous change's is written as the
// previous one's (the file's times never go back). After an error every
// call returns it.
func (rw *RecordingWriter) Add(t time.Time, typ watch.EventType, obj runtime.Object) error {
	switch typ {
	case watch.Added, watch.Modified, watch.Deleted:
	default:
		return fmt.Errorf("a %q watch event is not a change", typ)
	}
	raw, err := encodeObject(obj, rw.dropEnv)
	if err != nil {
		return err
	}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if t.Before(rw.last) {
		t = rw.last
	}
	if err := rw.writeDoc(changeDoc{APIVersion: RecordingAPIVersion, Kind: RecordedChangeKind, Time: formatRecordingTime(t),
		Type: string(typ), Object: raw}); err != nil {
		return err
	}
	rw.last = t
	rw.changes++
	if rw.zw != nil && time.Since(rw.lastFlush) >= FlushInterval {
		return rw.flushLocked()
	}
	return nil
}

// AddExtenderAnswer writes one extender call made at time t (as Add,
// times never go back).
func (rw *RecordingWriter) AddExtenderAnswer(t time.Time, a extender.Exchange) error {
	nodes := a.Nodes
	if nodes == nil {
		nodes = []string{}
	}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if t.Before(rw.last) {
		t = rw.last
	}
	if err := rw.writeAny(extenderAnswerDoc{APIVersion: RecordingAPIVersion, Kind: ExtenderAnswerKind, Time: formatRecordingTime(t),
		Extender: a.Extender, Verb: a.Verb, Pod: a.Pod, PodUID: a.PodUID, Nodes: nodes, Status: a.Status, Body: string(a.Body),
		Error: a.Error, Latency: a.Latency.String()}); err != nil {
		return err
	}
	rw.last = t
	rw.answers++
	return nil
}

// ExtenderAnswers is the number of extender answers written so far.
func (rw *RecordingWriter) ExtenderAnswers() int {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.answers
}

func formatRecordingTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (rw *RecordingWriter) writeDoc(d changeDoc) error { return rw.writeAny(d) }

func (rw *RecordingWriter) writeAny(d any) error {
	if rw.err != nil {
		return rw.err
	}
	if rw.closed {
		return errors.New("the recording is closed")
	}
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if rw.yaml {
		y, err := yaml.JSONToYAML(b)
		if err != nil {
			return err
		}
		b = append([]byte("---\n"), y...)
	} else {
		b = append(b, '\n')
	}
	// One write per document: a reader never sees half of one unless the
	// process dies in the middle of the write.
	if _, err := rw.w.Write(b); err != nil {
		rw.err = err
		return err
	}
	rw.dirty = true
	return nil
}

// Flush pushes what the compressor holds to the destination (a no-op for
// an uncompressed recording, whose documents are written as they come).
func (rw *RecordingWriter) Flush() error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.closed {
		return rw.err
	}
	return rw.flushLocked()
}

func (rw *RecordingWriter) flushLocked() error {
	if rw.err != nil {
		return rw.err
	}
	rw.lastFlush = time.Now()
	if rw.zw == nil || !rw.dirty {
		return nil
	}
	if err := rw.zw.Flush(); err != nil {
		rw.err = err
		return err
	}
	// Not fsync: the file only has to survive the process.
	rw.dirty = false
	return nil
}

// Close ends the recording: the end marker with time until (the
// recording is complete up to then), the end of the gzip stream, and the
// file CreateRecording opened.
func (rw *RecordingWriter) Close(until time.Time) error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.closed {
		return rw.err
	}
	if until.Before(rw.last) {
		until = rw.last
	}
	err := rw.writeDoc(changeDoc{APIVersion: RecordingAPIVersion, Kind: RecordingEndKind, Time: formatRecordingTime(until)})
	rw.closed = true
	if rw.zw != nil {
		if cerr := rw.zw.Close(); err == nil {
			err = cerr
		}
	}
	if rw.file != nil {
		if cerr := rw.file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil && rw.err == nil {
		rw.err = err
	}
	return err
}
