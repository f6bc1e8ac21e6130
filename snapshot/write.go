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
//
// The List is written one object at a time, as it is encoded: neither the
// file nor every object's encoding is ever held whole, so that writing
// takes little memory beside the cluster's own (a million pods' JSON is
// 3.4 GiB, and the List indented and converted to YAML several times
// that).
func Write(w io.Writer, c *Cluster, h Header, f OutputFormat) (int, error) {
	objs := c.Objects()
	var zw *gzip.Writer
	if f.Gzip {
		zw = gzip.NewWriter(w)
		w = zw
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var err error
	switch {
	case f.Protobuf:
		err = writeProtobufList(bw, objs, h)
	case f.YAML:
		err = writeYAMLList(bw, objs, h)
	default:
		err = writeJSONList(bw, objs, h)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && zw != nil {
		err = zw.Close()
	}
	if err != nil {
		return 0, err
	}
	return len(objs), nil
}

// jsonList is the List as a snapshot file holds it, for its encoding
// around the items.
type jsonList struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// emptyList is the List of a snapshot without objects, indented as
// json.MarshalIndent indents it, with the header's annotations when
// annotated: what comes before and after the items of one with objects.
func emptyList(h Header, annotated bool) ([]byte, error) {
	list := jsonList{APIVersion: "v1", Kind: "List", Items: []json.RawMessage{}}
	if annotated {
		list.Metadata.Annotations = h.annotations()
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the List: %w", err)
	}
	return data, nil
}

// Where the items go in the empty List: the List's last member.
const (
	noJSONItems = "[]\n}"
	noYAMLItems = "items: []\n"
)

// writeJSONList writes the List in JSON as json.MarshalIndent writes it
// with every object's JSON as an item (with two spaces of indentation),
// byte for byte: each object is encoded and indented on its own, at the
// depth of the List's items.
func writeJSONList(w *bufio.Writer, objs []runtime.Object, h Header) error {
	h = redactHeader(h)
	empty, err := emptyList(h, true)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		w.Write(empty)
		return w.WriteByte('\n')
	}
	head, ok := bytes.CutSuffix(empty, []byte(noJSONItems))
	if !ok {
		return fmt.Errorf("encoding the List: no empty items at the end of %q", empty)
	}
	w.Write(head)
	w.WriteByte('[')
	var indented bytes.Buffer
	err = eachObjectJSON(objs, h, func(i int, o runtime.Object, b []byte) error {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		indented.Reset()
		if err := json.Indent(&indented, b, "    ", "  "); err != nil {
			return fmt.Errorf("encoding %s: %w", describeObject(o), err)
		}
		_, err := w.Write(indented.Bytes())
		return err
	})
	if err != nil {
		return err
	}
	_, err = w.WriteString("\n  ]\n}\n")
	return err
}

// eachObjectJSON calls write with each object's JSON as the List holds it
// (see encodeObject), in order, until it fails.
func eachObjectJSON(objs []runtime.Object, h Header, write func(i int, o runtime.Object, b []byte) error) error {
	dropEnv := h.EnvValues == EnvValuesDropped
	for i, o := range objs {
		b, err := encodeObject(o, dropEnv)
		if err != nil {
			return err
		}
		if err := write(i, o, b); err != nil {
			return err
		}
	}
	return nil
}

// writeYAMLList writes the List in YAML after the header's comment as
// yaml.JSONToYAML converts the whole List's JSON, byte for byte: each
// object is converted on its own as the one item of a List's items,
// where the whole List's conversion writes it (the List's members are
// written in the order of their names, items second).
func writeYAMLList(w *bufio.Writer, objs []runtime.Object, h Header) error {
	h = redactHeader(h)
	empty, err := emptyList(h, false)
	if err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(empty)
	if err != nil {
		return fmt.Errorf("encoding the List as YAML: %w", err)
	}
	w.Write(h.comment())
	if len(objs) == 0 {
		_, err := w.Write(y)
		return err
	}
	head, tail, ok := bytes.Cut(y, []byte(noYAMLItems))
	if !ok {
		return fmt.Errorf("encoding the List as YAML: no empty items in %q", y)
	}
	w.Write(head)
	w.WriteString("items:\n")
	var one bytes.Buffer
	err = eachObjectJSON(objs, h, func(_ int, o runtime.Object, b []byte) error {
		one.Reset()
		one.WriteString(`{"items":[`)
		one.Write(b)
		one.WriteString("]}")
		item, err := yaml.JSONToYAML(one.Bytes())
		if err != nil {
			return fmt.Errorf("encoding %s as YAML: %w", describeObject(o), err)
		}
		item, ok := bytes.CutPrefix(item, []byte("items:\n"))
		if !ok {
			return fmt.Errorf("encoding %s as YAML: unexpected %.40q", describeObject(o), item)
		}
		_, err = w.Write(item)
		return err
	})
	if err != nil {
		return err
	}
	_, err = w.Write(tail)
	return err
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
