package snapshot

import (
	"bytes"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// TestProtobufEnvelopeAsGenerated: the envelope read in place gives what
// runtime.Unknown's generated Unmarshal gives, for a plain envelope, one
// whose TypeMeta comes twice (merged field by field), one with a field it
// does not know, one with a known field of the wrong wire type and a
// truncated one.
func TestProtobufEnvelopeAsGenerated(t *testing.T) {
	first := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "Pod"}, Raw: []byte{1, 2, 3}, ContentType: runtime.ContentTypeProtobuf}
	plain, err := first.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	second := runtime.Unknown{TypeMeta: runtime.TypeMeta{Kind: "Node"}, ContentType: "application/json"}
	more, err := second.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for name, msg := range map[string][]byte{
		"plain":         plain,
		"twice":         append(append([]byte{}, plain...), more...),
		"unknown field": append(append([]byte{}, plain...), 0x98, 0x06, 1),
		"wrong type":    append(append([]byte{}, plain...), 0x08, 1),
		"truncated":     plain[:len(plain)-2],
	} {
		var u runtime.Unknown
		wantErr := u.Unmarshal(msg)
		got, err := readProtobufEnvelope(msg)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%s: error %v, generated code's %v", name, err, wantErr)
			continue
		}
		if err == nil && (got.APIVersion != u.APIVersion || got.Kind != u.Kind || got.ContentType != u.ContentType || !bytes.Equal(got.Raw, u.Raw)) {
			t.Errorf("%s: read %+v, generated code's %+v", name, got, u)
		}
	}
}
