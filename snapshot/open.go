package snapshot

// Opening a snapshot by path: a file (any format ReadDocuments reads, or a
// kube-scheduler-simulator export), a directory of such files, or the
// directory `kubectl cluster-info dump --output-directory` writes.
//
// Reading one is a pipeline, a file per step:
//
//	format.go     1. the format: a cluster-info dump or another directory,
//	                 a recording or another file (every Format is there)
//	documents.go  2. the documents of each file, and the items of Lists
//	decode.go     3. each object decoded to its type (from JSON by
//	                 decode_fast.go first, the strict decoder for what
//	                 it refuses)
//	admit.go      4. what the API server does to it: defaulting,
//	                 validation, admission
//	loader.go     5. the cluster: duplicates refused, then Finish
//
// header.go reads capture headers wherever they are; protobuf.go,
// simulator.go and recording_read.go read their formats' documents;
// filebuffer.go holds a big file's bytes outside the heap, given back as
// its items are added.

import (
	"errors"
	"strings"
	"time"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/features"
)

// EmbeddedConfig is a scheduler configuration a snapshot carries: the
// schedulerConfig of a kube-scheduler-simulator export, or the one a
// `schedtui snapshot --config` capture recorded.
type EmbeddedConfig struct {
	File string
	Line int
	// Where says where in the file it was found, for messages.
	Where string
	// Data is the KubeSchedulerConfiguration as JSON or YAML.
	Data []byte
}

func (e EmbeddedConfig) String() string {
	return origin{file: e.File, line: e.Line}.String() + " (" + e.Where + ")"
}

// Opened is a snapshot read by Open.
type Opened struct {
	Cluster *Cluster
	Report  *docread.Report
	Format  Format
	// Config is the scheduler configuration the snapshot carries, parsed,
	// defaulted and validated; nil when it carries none or it is invalid
	// (then the Report says why).
	Config *configv1.KubeSchedulerConfiguration
	// ConfigSource describes where Config came from; ConfigData is the
	// configuration as the snapshot carries it.
	ConfigSource string
	ConfigData   []byte
	// Header is the header of a snapshot `schedtui snapshot` wrote (the
	// first one, for a directory), or nil. A recording's has
	// RecordingStarted set.
	Header *Header
	// Changes are the changes of a recording (`schedtui record`, Format
	// FormatRecording) in file order, their times never going back;
	// Cluster is the state when the recording started. Empty for a
	// snapshot.
	Changes []RecordedChange
	// ExtenderAnswers are a recording's extender calls (Header
	// ExtenderAnswers "recorded"), in file order.
	ExtenderAnswers []RecordedExtenderAnswer
	// RecordedUntil is when a recording ended; zero when it was cut short
	// (the recorder was killed) or for a snapshot.
	RecordedUntil time.Time
}

// Open reads a snapshot from path, detecting its layout: a file (YAML or
// JSON objects and Lists, or a kube-scheduler-simulator export, each
// possibly gzipped), a directory of such files read recursively in sorted
// order, or a `kubectl cluster-info dump --output-directory` tree. The
// error means nothing could be read (a missing path, a single file that
// does not parse); problems with individual files of a directory and with
// individual objects are in the Report.
//
// A recording (a file `schedtui record` wrote, see ReadRecording) opens as
// its initial state plus its Changes.
func Open(path string) (*Opened, error) { return OpenReporting(path, nil) }

// OpenReporting is Open, telling p how far it is: the bytes of the
// snapshot's files loaded, of all of them (see loadMeter for what counts).
// Reports come from the calling goroutine.
func OpenReporting(path string, p progress.Reporter) (*Opened, error) {
	return OpenUnder(path, p, features.Default())
}

// OpenUnder is OpenReporting validating the objects as an API server with
// the gates gates does (see Loader.ValidateUnder).
func OpenUnder(path string, p progress.Reporter, gates features.Features) (*Opened, error) {
	newLoader := func() *Loader {
		l := NewLoader()
		l.meter = newLoadMeter(p)
		l.ValidateUnder(gates)
		return l
	}
	format, err := detectFormat(path)
	if err != nil {
		return nil, err
	}
	if format == FormatRecording {
		o, err := openRecordingFile(path, newLoader())
		if !errors.Is(err, errNotRecording) {
			return o, err
		}
		format = FormatFile
	}
	l := newLoader()
	if err := l.loadAs(path, format); err != nil {
		return nil, err
	}
	if u := l.unknownIdx[RecordedChangeKind]; u != nil && u.apiVersion == RecordingAPIVersion {
		l.report.Warnf(u.at.file, u.at.line, "", "", "%s documents are a recording's changes, but the file's header has no recording-started "+
			"(a comment line \"# recording-started: TIME\" with \"# schedtui-snapshot: v1\" in YAML, the annotation %srecording-started on the List in JSON): "+
			"it is read as a snapshot", RecordedChangeKind, annotationPrefix)
	}
	c, r := l.Finish()
	if err := l.nothingLoaded(path, r); err != nil {
		return nil, err
	}
	o := &Opened{Cluster: c, Report: r, Format: format}
	if format == FormatFile && l.sawSimulatorExport {
		o.Format = FormatSimulatorExport
	}
	o.Config, o.ConfigSource = l.parseEmbeddedConfig()
	if o.Config != nil {
		o.ConfigData = l.configs[0].Data
	}
	if len(l.headers) > 0 {
		o.Header = l.headers[0]
	}
	r.Sort()
	return o, nil
}

// LoadPath reads a file or a directory (see Open) into the loader and
// returns the layout it detected. For a file the error is LoadFile's; for
// a directory it means the directory cannot be read or holds no snapshot
// file, and files that cannot be parsed are reported as problems. A
// recording is read as a snapshot: its changes are not replayed.
func (l *Loader) LoadPath(path string) (Format, error) {
	format, err := detectFormat(path)
	if err != nil {
		return "", err
	}
	if format == FormatRecording {
		format = FormatFile
	}
	return format, l.loadAs(path, format)
}

// EmbeddedConfigs returns the scheduler configurations found so far, in
// load order.
func (l *Loader) EmbeddedConfigs() []EmbeddedConfig { return l.configs }

// parseEmbeddedConfig parses the first embedded configuration; its
// problems, and the presence of others, go to the report.
func (l *Loader) parseEmbeddedConfig() (*configv1.KubeSchedulerConfiguration, string) {
	if len(l.configs) == 0 {
		return nil, ""
	}
	first := l.configs[0]
	for _, other := range l.configs[1:] {
		l.report.Warnf(other.File, other.Line, "", "", "another scheduler configuration (%s); only the first one, at %s, is used", other.Where, first)
	}
	// Read under v1.37's default gates; a command that resolves other
	// gates reads ConfigData again under them.
	cfg, r, err := config.LoadData(first.File, first.Data, features.Default())
	for _, p := range r.Problems {
		if p.Line == 0 {
			p.Line = first.Line
		}
		p.Object = strings.TrimSpace(first.Where + ": " + p.Object)
		l.report.Add(p)
	}
	if err != nil {
		var pe *docread.ParseError
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Msg
		}
		l.report.Errorf(first.File, first.Line, first.Where, "", "%s; the embedded scheduler configuration is not used", msg)
		return nil, ""
	}
	return cfg, first.String()
}

// LoadFile reads a snapshot: a file of YAML (one or more documents) or
// JSON (one or more concatenated objects), either possibly
// gzip-compressed, holding objects or Lists of objects, or a
// kube-scheduler-simulator export; or a directory of such files or a
// `kubectl cluster-info dump --output-directory` tree (see Open, which also
// returns the scheduler configuration a snapshot may carry). The returned
// error (a *ParseError) means the snapshot could not be read or parsed at
// all; problems with individual objects are in the Report, and those
// objects are left out.
func LoadFile(path string) (*Cluster, *docread.Report, error) {
	o, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	return o.Cluster, o.Report, nil
}

// Load is LoadFile for data already in memory; name is used in problems.
func Load(name string, data []byte) (*Cluster, *docread.Report, error) {
	return LoadUnder(name, data, nil)
}

// LoadUnder is Load with the objects created as an API server with gates
// would (Loader.ValidateUnder; nil: v1.37's defaults): the embedded demo,
// whose scheduler runs with GenericWorkload, keeps its pods'
// spec.schedulingGroup.
func LoadUnder(name string, data []byte, gates *features.Features) (*Cluster, *docread.Report, error) {
	l := NewLoader()
	if gates != nil {
		l.ValidateUnder(*gates)
	}
	if err := l.LoadData(name, data); err != nil {
		return nil, nil, err
	}
	c, r := l.Finish()
	return c, r, nil
}
