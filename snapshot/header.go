package snapshot

// The capture header (Header): what `schedtui snapshot` and `schedtui record`
// write about a capture, and where reading finds it: the leading comment of
// YAML, the annotations of a JSON List, the first item of a protobuf List.
// Every reader of a header is here; write.go writes it.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/internal/docread"
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

const (
	headerKey        = "schedtui-snapshot"
	headerVersion    = "v1"
	annotationPrefix = "schedtui.dev/"
)

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

// listHeaderInput returns what listHeader needs to see of a document to
// answer as it would for the whole document, or nil when it would find no
// header. listHeader decodes with encoding/json into a struct with kind
// and metadata, which matches keys case-insensitively and ignores the
// others: only the members whose key may match are kept (not the items).
func listHeaderInput(data []byte, members []docread.Member) []byte {
	var kept []docread.Member
	isList := false
	for _, m := range members {
		ascii := docread.IsASCII([]byte(m.Key))
		if ascii && !strings.EqualFold(m.Key, "kind") && !strings.EqualFold(m.Key, "metadata") {
			continue
		}
		if v := data[m.Value.Start:m.Value.End]; !ascii || strings.EqualFold(m.Key, "kind") && string(v) != "null" {
			// The last value of a kind-like key decides whether this is a
			// List (null leaves the value alone); non-ASCII keys may fold
			// to "kind".
			isList = !ascii || docread.StringValue(v) == "List"
		}
		kept = append(kept, m)
	}
	if !isList {
		return nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range kept {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(data[m.Value.Start:m.Value.End])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// protobufHeader reads the header item of a protobuf snapshot: the raw
// bytes of its envelope, the Header as JSON.
func protobufHeader(raw []byte) (*Header, error) {
	var h Header
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("cannot decode the snapshot header: %w", err)
	}
	return &h, nil
}
