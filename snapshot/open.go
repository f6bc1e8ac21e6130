package snapshot

// Opening a snapshot by path: a file (any format ReadDocuments reads, or a
// kube-scheduler-simulator export), a directory of such files, or the
// directory `kubectl cluster-info dump --output-directory` writes.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/internal/progress"
	"github.com/schedtui/schedtui/scheduler/apis/config"
	"github.com/schedtui/schedtui/scheduler/features"
)

// Format names the layout a snapshot was read from.
type Format string

const (
	// FormatFile: one file of objects or Lists (YAML or JSON, maybe gzipped).
	FormatFile Format = "file"
	// FormatDirectory: a directory of such files, read recursively.
	FormatDirectory Format = "directory"
	// FormatClusterInfoDump: `kubectl cluster-info dump --output-directory`.
	FormatClusterInfoDump Format = "kubectl cluster-info dump"
	// FormatSimulatorExport: kube-scheduler-simulator's export JSON.
	FormatSimulatorExport Format = "kube-scheduler-simulator export"
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
	return origin{e.File, e.Line}.String() + " (" + e.Where + ")"
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
	l := NewLoader()
	l.meter = newLoadMeter(p)
	l.ValidateUnder(gates)
	if o, ok, err := openRecordingFile(path, l); ok {
		return o, err
	}
	format, err := l.LoadPath(path)
	if err != nil {
		return nil, err
	}
	if u := l.unknownIdx[RecordedChangeKind]; u != nil && u.apiVersion == RecordingAPIVersion {
		l.report.Warnf(u.at.file, u.at.line, "", "", "%s documents are a recording's changes, but the file's header has no recording-started "+
			"(a comment line \"# recording-started: TIME\" with \"# schedtui-snapshot: v1\" in YAML, the annotation %srecording-started on the List in JSON): "+
			"it is read as a snapshot", RecordedChangeKind, annotationPrefix)
	}
	c, r := l.Finish()
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

// snapshotExts are the extensions of the files a directory is read for
// (each also with ".gz").
var snapshotExts = []string{".yaml", ".yml", ".json", ".pb"}

// IsSnapshotFileName reports whether a directory's file is read as part of
// the snapshot: .yaml, .yml, .json or .pb, optionally followed by .gz.
func IsSnapshotFileName(name string) bool {
	name = strings.TrimSuffix(strings.ToLower(name), ".gz")
	for _, ext := range snapshotExts {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// LoadPath reads a file or a directory (see Open) into the loader and
// returns the layout it detected. For a file the error is LoadFile's; for
// a directory it means the directory cannot be read or holds no snapshot
// file, and files that cannot be parsed are reported as problems.
func (l *Loader) LoadPath(path string) (Format, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
	}
	if !fi.IsDir() {
		l.meter.setTotal(fi.Size())
		return FormatFile, l.LoadFile(path)
	}
	if dump := clusterInfoDumpNodes(path); dump != "" {
		return FormatClusterInfoDump, l.loadClusterInfoDump(path, dump)
	}
	return FormatDirectory, l.loadDir(path)
}

// loadFiles loads every file, reporting the ones that do not parse.
func (l *Loader) loadFiles(dir string, files []string) error {
	if len(files) == 0 {
		return &docread.ParseError{File: dir, Msg: "no snapshot files in the directory (looked for *.yaml, *.yml, *.json, *.pb, optionally gzipped as *.gz)"}
	}
	if l.meter != nil {
		var total int64
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				total += fi.Size()
			}
		}
		l.meter.setTotal(total)
	}
	for _, f := range files {
		if l.loadRecordingInDirectory(f) {
			continue
		}
		if err := l.LoadFile(f); err != nil {
			var pe *docread.ParseError
			if errors.As(err, &pe) {
				l.report.Errorf(pe.File, pe.Line, "", "", "%s; the file is skipped", pe.Msg)
			} else {
				l.report.Errorf(f, 0, "", "", "%v; the file is skipped", err)
			}
		}
	}
	return nil
}

// loadDir reads every snapshot file under dir, recursively, in lexical
// order of their paths. Hidden files and directories are skipped.
func (l *Loader) loadDir(dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			l.report.Errorf(p, 0, "", "", "cannot read: %v; skipped", err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && d.Type().IsRegular() && IsSnapshotFileName(d.Name()) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return &docread.ParseError{File: dir, Msg: "cannot read directory: " + err.Error(), Err: err}
	}
	return l.loadFiles(dir, files)
}

// clusterInfoDumpNodes returns the nodes file of a `kubectl cluster-info
// dump --output-directory` tree (nodes.json at the top; nodes.yaml with
// -o yaml), or "".
func clusterInfoDumpNodes(dir string) string {
	for _, n := range []string{"nodes.json", "nodes.yaml", "nodes.json.gz", "nodes.yaml.gz"} {
		p := filepath.Join(dir, n)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// dumpSkipped are the files of a cluster-info dump that hold nothing
// schedtui reads (events; the pods' logs are in per-pod directories).
func dumpSkipped(name string) bool {
	base := strings.TrimSuffix(strings.ToLower(name), ".gz")
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".json"), ".yaml")
	return base == "events"
}

// loadClusterInfoDump reads nodes.json, then every namespace directory's
// Lists (pods.json, services.json, replicasets.json, daemonsets.json,
// ...) in sorted order, skipping events and the per-pod log directories.
func (l *Loader) loadClusterInfoDump(dir, nodes string) error {
	files := []string{nodes}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &docread.ParseError{File: dir, Msg: "cannot read directory: " + err.Error(), Err: err}
	}
	var top []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "."), p == nodes:
		case e.IsDir():
			nsFiles, err := os.ReadDir(p)
			if err != nil {
				l.report.Errorf(p, 0, "", "", "cannot read: %v; skipped", err)
				continue
			}
			for _, f := range nsFiles {
				// Subdirectories hold pod logs.
				if f.Type().IsRegular() && IsSnapshotFileName(f.Name()) && !dumpSkipped(f.Name()) && !strings.HasPrefix(f.Name(), ".") {
					top = append(top, filepath.Join(p, f.Name()))
				}
			}
		case e.Type().IsRegular() && IsSnapshotFileName(e.Name()) && !dumpSkipped(e.Name()):
			top = append(top, p)
		}
	}
	sort.Strings(top)
	return l.loadFiles(dir, append(files, top...))
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
