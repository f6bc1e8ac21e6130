package snapshot

// Step 1 of reading a snapshot: telling its format. Every format is declared
// here, with what tells it: a directory or a file; in a directory, the
// files read and the layout of a `kubectl cluster-info dump`; in a file, a
// recording's header, gzip's and protobuf's magic bytes (then documents.go
// reads the documents, JSON or YAML, and a kube-scheduler-simulator export
// is told by its keys, simulator.go).

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedtui/schedtui/internal/docread"
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
	// FormatRecording: a recording `schedtui record` wrote.
	FormatRecording Format = "recording"
)

// detectFormat tells the layout of the snapshot at path: a cluster-info
// dump or another directory, a recording or another file (a file that
// turns out to be a kube-scheduler-simulator export is FormatFile until
// its document is read).
func detectFormat(path string) (Format, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
	}
	if what := unreadable(fi.Mode()); what != "" {
		return "", unreadableError(path, what)
	}
	switch {
	case fi.IsDir() && clusterInfoDumpNodes(path) != "":
		return FormatClusterInfoDump, nil
	case fi.IsDir():
		return FormatDirectory, nil
	case isRecordingFile(path):
		return FormatRecording, nil
	}
	return FormatFile, nil
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

// recordingPeek is how much of a file is read to tell a recording.
const recordingPeek = 64 << 10

var (
	utf8BOM = []byte("\xef\xbb\xbf")
	// recordingAnnotation is the header's recording-started annotation
	// on a JSON List, which Write puts before the items.
	recordingAnnotation = []byte(`"` + annotationPrefix + "recording-started" + `"`)
	errNotRecording     = errors.New("not a recording")
)

// IsRecording reports whether data (a file's content, maybe gzipped, or
// its beginning) starts a recording: a capture header with
// recording-started, as a YAML comment or as an annotation of the JSON
// List.
func IsRecording(data []byte) bool {
	if docread.IsGzip(data) {
		data = gunzipPrefixN(data, recordingPeek)
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if firstByte(data) == '{' {
		return bytes.Contains(data, recordingAnnotation)
	}
	h, _, ok := headerFromComment(data)
	return ok && h.IsRecording()
}

func firstByte(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// gunzipPrefixN decompresses at most n bytes of data, as far as it goes.
func gunzipPrefixN(data []byte, n int64) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	out, _ := io.ReadAll(io.LimitReader(zr, n))
	return out
}

// isRecordingFile reports whether path is a regular file that starts a
// recording (see IsRecording).
func isRecordingFile(path string) bool {
	head, isFile := peekFile(path)
	return isFile && IsRecording(head)
}

// peekFile reads the beginning of a regular file (decompressed).
func peekFile(path string) ([]byte, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	buf, _ := io.ReadAll(io.LimitReader(f, recordingPeek))
	return buf, true
}

// protobufMagic starts every object the API server's protobuf serializer
// writes ("k8s" and the envelope's version 0).
var protobufMagic = []byte{'k', '8', 's', 0}

// IsProtobuf reports whether data is a protobuf envelope (see above).
func IsProtobuf(data []byte) bool { return bytes.HasPrefix(data, protobufMagic) }
