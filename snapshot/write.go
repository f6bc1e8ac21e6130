package snapshot

// Writing a Cluster as a snapshot: one v1 List, YAML or JSON, maybe
// gzipped, with a header saying where and when it was captured.

import (
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
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
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
