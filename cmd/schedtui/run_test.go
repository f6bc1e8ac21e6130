package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunJSON runs the demo headless: every line is JSON with a known
// kind, attempts keep their schema, and the run ends quiescent.
func TestRunJSON(t *testing.T) {
	for _, args := range [][]string{{"--demo", "-o", "json"}, {"--demo", "-o", "json", "--until", "12m"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := newRunCommand()
			var out, errOut bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(args)
			if err := cmd.Execute(); err != nil {
				t.Fatalf("%v: %s", err, errOut.String())
			}
			kinds := map[string]int{}
			// The demo says so first, as the text's source line does.
			if first, _, _ := strings.Cut(out.String(), "\n"); first != `{"kind":"source","demo":true,"source":"`+demoHeader+`"}` {
				t.Errorf("first line %s", first)
			}
			sc := bufio.NewScanner(&out)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatalf("line %q: %v", sc.Text(), err)
				}
				k, _ := m["kind"].(string)
				kinds[k]++
				switch k {
				case "attempt":
					for _, f := range []string{"pod", "outcome", "node", "feasible", "filter", "scores", "total", "top", "message", "nominatedNode", "victims"} {
						if _, ok := m[f]; !ok {
							t.Errorf("attempt line without %q: %s", f, sc.Text())
						}
					}
				case "source":
				case "queue", "preemption", "eviction":
					if _, ok := m["time"].(string); !ok {
						t.Errorf("%s line without time: %s", k, sc.Text())
					}
				default:
					t.Errorf("unknown kind in %s", sc.Text())
				}
			}
			if kinds["source"] != 1 || kinds["attempt"] == 0 || kinds["queue"] == 0 || kinds["preemption"] != 1 || kinds["eviction"] != 2 {
				t.Errorf("kinds %v", kinds)
			}
		})
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-o", "yaml"}, {"--until", "-1m"}, {"-o", "json", "--detail", "some"}, {"--detail", "summary"}} {
		cmd := newRunCommand()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetArgs(args)
		if err := cmd.Execute(); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestExplainDaemonSetCommand(t *testing.T) {
	cmd := newExplainCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"--demo", "daemonset/log-agent"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"should run on 3 of 6 nodes", "node-a2", "untolerated taint", "kube-system/log-agent-b1x7k"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	cmd = newExplainCommand()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"ds/missing"})
	if err := cmd.Execute(); err == nil {
		t.Error("a missing DaemonSet was explained")
	}
}

// TestRunJSONSourceOnlyOnTheDemo: the demo's source line is the demo's;
// the same cluster read as a snapshot is not called the demo.
func TestRunJSONSourceOnlyOnTheDemo(t *testing.T) {
	out, errOut, err := runCmd(t, newRunCommand, "--snapshot", "../../testdata/demo.yaml", "-o", "json", "--detail", "summary")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if strings.Contains(out, `"kind":"source"`) || !strings.HasPrefix(out, `{"kind":"queue"`) {
		t.Errorf("a snapshot's run -o json:\n%.300s", out)
	}
}
