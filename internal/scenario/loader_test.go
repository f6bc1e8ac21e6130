package scenario

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedtui/schedtui/snapshot"
)

// TestLoaderAcceptsScenarios feeds scenarios through schedtui's own snapshot
// loader (decode, defaulting, admission, validation): nothing may be
// rejected, and nothing may change, since the objects are already in their
// stored form. The only expected warning is the pod deliberately bound to a
// node that is not in the snapshot.
func TestLoaderAcceptsScenarios(t *testing.T) {
	var all []*Scenario
	for seed := int64(0); seed < 10; seed++ {
		all = append(all, Generate(seed, coverageOptions(seed)))
	}
	for _, s := range Curated() {
		if len(s.Cluster.Nodes) < 1000 {
			all = append(all, s)
		}
	}
	for i, s := range all {
		var data []byte
		if i < 2 {
			data = dumpBytes(t, s) // the YAML path
		} else {
			l := list{APIVersion: "v1", Kind: "List"}
			for _, o := range objectsOf(t, s.Cluster) {
				b, err := json.Marshal(o)
				if err != nil {
					t.Fatal(err)
				}
				l.Items = append(l.Items, b)
			}
			var err error
			if data, err = json.Marshal(l); err != nil {
				t.Fatal(err)
			}
		}
		c := loadClean(t, s.Name, data)
		want, _ := json.Marshal(objectsOf(t, s.Cluster))
		got, _ := json.Marshal(objectsOf(t, c))
		if !bytes.Equal(want, got) {
			t.Errorf("%s: the loader changed objects", s.Name)
		}
	}
}

// loadClean loads data with schedtui's snapshot loader, which may find
// nothing wrong but the pod bound to a node that is not in the snapshot.
func loadClean(t *testing.T, name string, data []byte) *snapshot.Cluster {
	t.Helper()
	c, r, err := snapshot.Load(name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, p := range r.Errors() {
		t.Errorf("%s: %s", name, p.String())
	}
	for _, p := range r.Warnings() {
		if !strings.Contains(p.Message, "node-decommissioned") {
			t.Errorf("%s: %s", name, p.String())
		}
	}
	return c
}
