package snapshot

// Writing a Cluster as a snapshot: one v1 List, YAML or JSON, maybe
// gzipped, with a header saying where and when it was captured.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Header is what a capture records about itself: as a leading comment in
// YAML, as annotations on the List in JSON. Open reads it back; a recorded
// scheduler configuration becomes the snapshot's configuration.
type Header struct {
	CapturedAt time.Time `json:"captured-at,omitempty"`
	// Context is the kubeconfig context captured ("" for a converted file).
	Context string `json:"context,omitempty"`
	// Source is where the objects came from: the API server's URL, or the
	// snapshot that was converted.
	Source string `json:"source,omitempty"`
	// ServerVersion is the API server's version.
	ServerVersion string `json:"server-version,omitempty"`
	// SchedtuiVersion is the version of the schedtui that captured.
	SchedtuiVersion string `json:"schedtui-version,omitempty"`
	// SchedulerConfigFile and SchedulerConfig are the --config file's name
	// and content.
	SchedulerConfigFile string `json:"scheduler-config-file,omitempty"`
	SchedulerConfig     string `json:"scheduler-config,omitempty"`
	// EmulatedVersion, MinCompatibilityVersion and FeatureGates are the
	// kube-scheduler flags the capture was given (--emulated-version,
	// --min-compatibility-version, --feature-gates): what the cluster's
	// scheduler runs with; reading the snapshot uses them.
	EmulatedVersion         string `json:"emulated-version,omitempty"`
	MinCompatibilityVersion string `json:"min-compatibility-version,omitempty"`
	FeatureGates            string `json:"feature-gates,omitempty"`
	// RecordingStarted marks a recording (schedtui record, see
	// recording.go): when the initial state was listed, the start of the
	// replay's virtual time. Zero for a snapshot.
	RecordingStarted time.Time `json:"recording-started,omitzero"`
	// ExtenderAnswers is "recorded" when the recorder asked the
	// configuration's extenders as the cluster's decisions came
	// (schedtui record with extenders) and wrote every exchange as an
	// ExtenderAnswer document: a replay answers from those alone.
	ExtenderAnswers string `json:"extender-answers,omitempty"`
	// At is the attempt a state was written at (schedtui snapshot --at):
	// "namespace/name#N", the pod's Nth attempt; CapturedAt is then the
	// attempt's virtual time. AttemptFirst is the pod a run over the
	// state pops first (the queue's order is not in the cluster), and
	// NextStartNodeIndex and RandomState (base64) the scheduler's state
	// between attempts that breaks ties (see engine.Resume). All empty
	// for a capture.
	At                 string `json:"at,omitempty"`
	AttemptFirst       string `json:"attempt-first,omitempty"`
	NextStartNodeIndex string `json:"next-start-node-index,omitempty"`
	RandomState        string `json:"random-state,omitempty"`
	// EnvValues says whether the pods' literal environment variable
	// values were written: EnvValuesDropped (they are written empty),
	// EnvValuesKept, or "" (as they are: a writer that was not asked).
	EnvValues string `json:"env-values,omitempty"`
	// Redacted says what the writer took out of the header: secrets of
	// the scheduler configuration and of the source (see redactHeader).
	// Set by the writer.
	Redacted string `json:"redacted,omitempty"`
}

// IsRecording reports whether the header is a recording's.
func (h *Header) IsRecording() bool { return h != nil && !h.RecordingStarted.IsZero() }

// headerKey marks a capture header; its value is the header format.
const (
	headerKey        = "schedtui-snapshot"
	headerVersion    = "v1"
	annotationPrefix = "schedtui.dev/"
)

// annotations is the header as annotations on the JSON List.
func (h Header) annotations() map[string]string {
	m := map[string]string{annotationPrefix + headerKey: headerVersion}
	b, _ := json.Marshal(h)
	var fields map[string]string
	_ = json.Unmarshal(b, &fields)
	for k, v := range fields {
		m[annotationPrefix+k] = v
	}
	return m
}

// headerFromAnnotations reads a header back from a List's annotations.
func headerFromAnnotations(a map[string]string) (*Header, bool) {
	if a[annotationPrefix+headerKey] == "" {
		return nil, false
	}
	fields := map[string]string{}
	for k, v := range a {
		if name, ok := strings.CutPrefix(k, annotationPrefix); ok && name != headerKey {
			fields[name] = v
		}
	}
	b, _ := json.Marshal(fields)
	var h Header
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, false
	}
	return &h, true
}

// comment is the header as a YAML comment: YAML itself once the "# " are
// taken off.
func (h Header) comment() []byte {
	b, _ := json.Marshal(h)
	var fields map[string]any
	_ = json.Unmarshal(b, &fields)
	fields[headerKey] = headerVersion
	y, _ := yaml.Marshal(fields)
	var out bytes.Buffer
	out.WriteString("# A schedtui snapshot (read it with schedtui --snapshot FILE).\n")
	for _, l := range strings.SplitAfter(strings.TrimSuffix(string(y), "\n"), "\n") {
		if strings.TrimSpace(l) == "" {
			out.WriteString("#\n")
			continue
		}
		out.WriteString("# " + strings.TrimSuffix(l, "\n") + "\n")
	}
	return out.Bytes()
}

var headerFieldRE = regexp.MustCompile(`^[a-z][a-z-]*:( |$)`)

// headerFromComment reads a header from the leading comment lines of YAML
// data; line is the line of its first field.
func headerFromComment(data []byte) (h *Header, line int, ok bool) {
	var body bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n, first, found := 0, 0, false
	for sc.Scan() {
		n++
		l := sc.Text()
		if !strings.HasPrefix(l, "#") {
			break
		}
		l = strings.TrimPrefix(strings.TrimPrefix(l, "#"), " ")
		if first == 0 {
			// Prose before the first field is not part of the header.
			if !headerFieldRE.MatchString(l) {
				continue
			}
			first = n
		}
		if strings.HasPrefix(l, headerKey+":") {
			found = true
		}
		body.WriteString(l + "\n")
	}
	if !found {
		return nil, 0, false
	}
	line = first
	var fields map[string]any
	if err := yaml.Unmarshal(body.Bytes(), &fields); err != nil || fields[headerKey] == nil {
		return nil, 0, false
	}
	delete(fields, headerKey)
	var hh Header
	b, _ := json.Marshal(fields)
	if err := json.Unmarshal(b, &hh); err != nil {
		return nil, 0, false
	}
	return &hh, line, true
}

// OutputFormat is how WriteFile encodes, from the file's name.
type OutputFormat struct {
	// YAML or (false) JSON.
	YAML bool
	// Protobuf: the API server's protobuf encoding instead (see
	// protobuf.go).
	Protobuf bool
	Gzip     bool
}

// OutputFormatFor picks the encoding from a file name: .yaml, .yml, .json
// or .pb (protobuf), optionally followed by .gz.
func OutputFormatFor(path string) (OutputFormat, error) {
	name := strings.ToLower(filepath.Base(path))
	var f OutputFormat
	if trimmed, ok := strings.CutSuffix(name, ".gz"); ok {
		f.Gzip, name = true, trimmed
	}
	switch {
	case strings.HasSuffix(name, ".yaml"), strings.HasSuffix(name, ".yml"):
		f.YAML = true
	case strings.HasSuffix(name, ".json"):
	case strings.HasSuffix(name, ".pb"):
		f.Protobuf = true
	default:
		return f, fmt.Errorf("%s: cannot tell the format from the name: use .yaml, .yml, .json or .pb (protobuf), optionally followed by .gz", path)
	}
	return f, nil
}

// Write writes the cluster as one v1 List (kind: List) in the given
// format, preceded by (YAML) or annotated with (JSON) the header, or, in
// protobuf, with the header as its first item; the header's secrets are
// left out (see redactHeader). Objects get their apiVersion and kind;
// managedFields are left out, and the pods' literal environment variable
// values too when h.EnvValues says so. It returns the number of objects
// written.
func Write(w io.Writer, c *Cluster, h Header, f OutputFormat) (int, error) {
	objs := c.Objects()
	var data []byte
	if f.Protobuf {
		pw, err := NewProtobufWriter(h)
		if err != nil {
			return 0, err
		}
		for _, o := range objs {
			if err := pw.Add(o); err != nil {
				return 0, err
			}
		}
		var buf bytes.Buffer
		if err := pw.WriteList(&buf); err != nil {
			return 0, err
		}
		data = buf.Bytes()
	} else {
		var err error
		if data, err = encodeList(objs, h, f.YAML); err != nil {
			return 0, err
		}
	}
	if f.Gzip {
		zw := gzip.NewWriter(w)
		if _, err := zw.Write(data); err != nil {
			return 0, err
		}
		if err := zw.Close(); err != nil {
			return 0, err
		}
		return len(objs), nil
	}
	if _, err := w.Write(data); err != nil {
		return 0, err
	}
	return len(objs), nil
}

// encodeList is the List of objs in YAML or JSON with the header.
func encodeList(objs []runtime.Object, h Header, asYAML bool) ([]byte, error) {
	h = redactHeader(h)
	items := make([]json.RawMessage, 0, len(objs))
	dropEnv := h.EnvValues == EnvValuesDropped
	for _, o := range objs {
		b, err := encodeObject(o, dropEnv)
		if err != nil {
			return nil, err
		}
		items = append(items, b)
	}
	list := struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Annotations map[string]string `json:"annotations,omitempty"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}{APIVersion: "v1", Kind: "List", Items: items}
	if !asYAML {
		list.Metadata.Annotations = h.annotations()
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the List: %w", err)
	}
	if asYAML {
		y, err := yaml.JSONToYAML(data)
		if err != nil {
			return nil, fmt.Errorf("encoding the List as YAML: %w", err)
		}
		return append(h.comment(), y...), nil
	}
	return append(data, '\n'), nil
}

// WithKind returns a deep copy of a snapshot object with its apiVersion
// and kind set (typed objects decoded by client-go leave them empty).
func WithKind(o runtime.Object) (runtime.Object, error) {
	ki := kindsByType[reflect.TypeOf(o)]
	if ki == nil {
		return nil, fmt.Errorf("cannot write objects of type %T", o)
	}
	o = o.DeepCopyObject()
	o.GetObjectKind().SetGroupVersionKind(ki.gv.WithKind(ki.kind))
	return o, nil
}

// writable is a copy of a snapshot object as a snapshot file holds it:
// with its apiVersion and kind, without managedFields, and with dropEnv
// without its pods' literal environment variable values (see
// EnvValuesDropped).
func writable(o runtime.Object, dropEnv bool) (runtime.Object, error) {
	o, err := WithKind(o)
	if err != nil {
		return nil, err
	}
	acc, err := meta.Accessor(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.GetObjectKind().GroupVersionKind().Kind, err)
	}
	acc.SetManagedFields(nil)
	if dropEnv {
		dropEnvValues(o)
	}
	return o, nil
}

// describeObject names a typed object in messages.
func describeObject(o runtime.Object) string {
	kind := o.GetObjectKind().GroupVersionKind().Kind
	if acc, err := meta.Accessor(o); err == nil {
		return describe(kind, acc.GetNamespace(), acc.GetName())
	}
	return kind
}

// encodeObject is an object's JSON as writable makes it. The object is
// not modified.
func encodeObject(o runtime.Object, dropEnv bool) ([]byte, error) {
	o, err := writable(o, dropEnv)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", describeObject(o), err)
	}
	return b, nil
}

// WriteFile writes the cluster to path (see Write), in the format its
// name says, replacing the file only once it is complete. The file gets
// the mode of the file it replaces, or, new, the mode the umask leaves of
// 0666, as any file a command creates.
func WriteFile(path string, c *Cluster, h Header) (int, error) {
	f, err := OutputFormatFor(path)
	if err != nil {
		return 0, err
	}
	tmp, err := createReplacement(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	n, err := Write(tmp, c, h, f)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// createReplacement creates an empty file beside path, to be renamed over
// it once complete, with the mode path is to have: the mode of the file
// it replaces (a snapshot kept 0600 because it holds a cluster's state
// stays so), else 0666 less the umask. os.CreateTemp would make it 0600
// whatever the umask; the kernel applies the umask to the mode given
// here, and a replaced file's mode is then set back exactly.
func createReplacement(path string) (*os.File, error) {
	perm := os.FileMode(0o666)
	replaced, err := os.Stat(path)
	if err == nil {
		perm = replaced.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	for tries := 0; ; tries++ {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && tries < 10000 {
			continue
		}
		if err != nil {
			return nil, err
		}
		if replaced != nil {
			if err := f.Chmod(perm); err != nil {
				f.Close()
				os.Remove(name)
				return nil, err
			}
		}
		return f, nil
	}
}

// listHeader reads the capture header of a JSON List.
func listHeader(data []byte) (*Header, bool) {
	var l struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &l); err != nil || l.Kind != "List" {
		return nil, false
	}
	return headerFromAnnotations(l.Metadata.Annotations)
}

// addHeader keeps a capture header and its scheduler configuration.
func (l *Loader) addHeader(file string, line int, h *Header) {
	l.headers = append(l.headers, h)
	if h.SchedulerConfig == "" {
		return
	}
	where := "the scheduler configuration schedtui snapshot recorded"
	if h.SchedulerConfigFile != "" {
		where += " from " + h.SchedulerConfigFile
	}
	l.configs = append(l.configs, EmbeddedConfig{File: file, Line: line, Where: where, Data: []byte(h.SchedulerConfig)})
}

// Headers returns the capture headers found so far, in load order.
func (l *Loader) Headers() []*Header { return l.headers }
