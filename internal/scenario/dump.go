package scenario

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/snapshot"
)

// list is a v1 List; Items are pre-encoded objects.
type list struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   map[string]string `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}

// Dump writes s as one YAML document: a v1 List whose items carry
// apiVersion and kind, loadable with `schedtui run --snapshot`. A comment
// header names the scenario, its seed and features.
func Dump(w io.Writer, s *Scenario) error {
	l := list{APIVersion: "v1", Kind: "List", Metadata: map[string]string{}, Items: []json.RawMessage{}}
	for _, o := range s.Cluster.Objects() {
		o, err := snapshot.WithKind(o)
		if err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		raw, err := json.Marshal(o)
		if err != nil {
			return fmt.Errorf("scenario %s: encoding %s: %w", s.Name, o.GetObjectKind().GroupVersionKind().Kind, err)
		}
		l.Items = append(l.Items, raw)
	}
	body, err := yaml.Marshal(l)
	if err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	header := fmt.Sprintf("# scenario: %s\n# seed: %d\n", s.Name, s.Seed)
	for _, line := range strings.Split(strings.TrimSpace(s.Doc), "\n") {
		if line != "" {
			header += "# " + strings.TrimSpace(line) + "\n"
		}
	}
	for _, f := range s.Features {
		header += "# feature: " + f + "\n"
	}
	if _, err := io.WriteString(w, header); err != nil {
		return err
	}
	_, err = w.Write(body)
	return err
}
