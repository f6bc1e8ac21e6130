package scenario

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/snapshot"
)

// objectsOf returns every object of c with apiVersion and kind set, in
// Dump's order.
func objectsOf(t testing.TB, c *snapshot.Cluster) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, o := range c.Objects() {
		typed, err := snapshot.WithKind(o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, typed)
	}
	return out
}
