package snapshot

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// The secrets the header tests plant; none may be written.
const (
	sourcePassword   = "s0urce-pass"
	extenderPassword = "ext3nder-pass"
	extenderKey      = "-----BEGIN PRIVATE KEY-----\nsecret-key-material\n-----END PRIVATE KEY-----\n"
)

var (
	extenderKeyData  = base64.StdEncoding.EncodeToString([]byte(extenderKey))
	extenderCertData = base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\npublic\n-----END CERTIFICATE-----\n"))
)

// writeEach writes c with header h in every format a snapshot is written
// in, and as a recording, into dir; it returns the files.
func writeEach(t *testing.T, dir string, c *Cluster, h Header) []string {
	t.Helper()
	var files []string
	for _, name := range []string{"s.yaml", "s.json", "s.pb"} {
		path := filepath.Join(dir, name)
		if _, err := WriteFile(path, c, h); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files = append(files, path)
	}
	for _, name := range []string{"r.yaml", "r.json"} {
		path := filepath.Join(dir, name)
		rh := h
		rh.RecordingStarted = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		rw, err := CreateRecording(path, c, rh)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, p := range c.Pods {
			if err := rw.Add(rh.RecordingStarted.Add(time.Second), watch.Modified, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := rw.Close(rh.RecordingStarted.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	return files
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHeaderSecretsRedacted checks that no header carries the password of
// a URL or an extender's private key, that it says what was taken out,
// and that the configuration still loads.
func TestHeaderSecretsRedacted(t *testing.T) {
	c, _ := mustLoad(t, "t.yaml", nodeN1)
	for _, tc := range []struct {
		name, config string
	}{
		{"yaml", `# the cluster's scheduler
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: https://sched:` + extenderPassword + `@extender.example:8443/scheduler
  filterVerb: filter
  weight: 1
  tlsConfig:
    certData: ` + extenderCertData + `
    keyData: ` + extenderKeyData + `
- urlPrefix: http://plain.example/scheduler
  prioritizeVerb: prioritize
  weight: 2
`},
		{"json", `{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
 "extenders": [{"urlPrefix": "https://sched:` + extenderPassword + `@extender.example:8443/scheduler", "filterVerb": "filter", "weight": 1,
   "tlsConfig": {"certData": "` + extenderCertData + `", "keyData": "` + extenderKeyData + `"}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := Header{Source: "https://admin:" + sourcePassword + "@api.example:6443", SchedulerConfigFile: "sched.yaml", SchedulerConfig: tc.config}
			for _, path := range writeEach(t, t.TempDir(), c, h) {
				data := mustRead(t, path)
				for _, secret := range []string{sourcePassword, extenderPassword, extenderKeyData, "secret-key-material"} {
					if bytes.Contains(data, []byte(secret)) {
						t.Errorf("%s holds the secret %q", filepath.Base(path), secret)
					}
				}
				o, err := Open(path)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if o.Header == nil || o.Config == nil {
					t.Fatalf("%s: header %+v, configuration %v: %s", filepath.Base(path), o.Header, o.Config, o.Report)
				}
				want := "the password of the source's URL; the password of the scheduler configuration's extenders[0].urlPrefix; " +
					"the scheduler configuration's extenders[0].tlsConfig.keyData"
				if o.Header.Redacted != want {
					t.Errorf("%s: redacted %q, want %q", filepath.Base(path), o.Header.Redacted, want)
				}
				if o.Header.Source != "https://admin:xxxxx@api.example:6443" {
					t.Errorf("%s: source %q", filepath.Base(path), o.Header.Source)
				}
				ext := o.Config.Extenders[0]
				if ext.URLPrefix != "https://sched:xxxxx@extender.example:8443/scheduler" || ext.TLSConfig == nil ||
					len(ext.TLSConfig.KeyData) != 0 || len(ext.TLSConfig.CertData) == 0 {
					t.Errorf("%s: the extender is read back as %+v", filepath.Base(path), ext)
				}
				if len(o.Config.Extenders) == 2 && o.Config.Extenders[1].URLPrefix != "http://plain.example/scheduler" {
					t.Errorf("%s: the second extender is read back as %+v", filepath.Base(path), o.Config.Extenders[1])
				}
			}
			// Converting a redacted snapshot keeps what it says.
			o, err := Open(writeEach(t, t.TempDir(), c, h)[0])
			if err != nil {
				t.Fatal(err)
			}
			again := filepath.Join(t.TempDir(), "again.yaml")
			if _, err := WriteFile(again, o.Cluster, *o.Header); err != nil {
				t.Fatal(err)
			}
			if back, err := Open(again); err != nil || back.Header.Redacted != o.Header.Redacted {
				t.Errorf("converted: redacted %q, want %q (%v)", back.Header.Redacted, o.Header.Redacted, err)
			}
		})
	}
}

// TestHeaderWithoutSecretsVerbatim checks that a configuration without
// secrets is written as it is, comments and all.
func TestHeaderWithoutSecretsVerbatim(t *testing.T) {
	c, _ := mustLoad(t, "t.yaml", nodeN1)
	cfg := "# mail ops@example.com\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" +
		"extenders:\n- urlPrefix: https://extender.example/x\n  filterVerb: filter\n  weight: 1\n  tlsConfig: {keyFile: /etc/key.pem, certFile: /etc/cert.pem}\n"
	for _, path := range writeEach(t, t.TempDir(), c, Header{Source: "https://api.example:6443", SchedulerConfig: cfg}) {
		o, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if o.Header.SchedulerConfig != cfg || o.Header.Redacted != "" || o.Header.Source != "https://api.example:6443" {
			t.Errorf("%s: header %+v", filepath.Base(path), o.Header)
		}
	}
}

const envPods = `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"spec":{"containers":[{"env":[{"name":"DB_PASSWORD","value":"hunter2"}]}]}}'
    keep: me
spec:
  initContainers:
  - name: init
    image: init
    env: [{name: INIT_TOKEN, value: init-hunter2}]
  containers:
  - name: c
    image: img
    env:
    - {name: DB_PASSWORD, value: hunter2}
    - name: FROM_SECRET
      valueFrom: {secretKeyRef: {name: db, key: password}}
    envFrom: [{secretRef: {name: all}}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec:
      containers:
      - name: c
        image: img
        env: [{name: API_KEY, value: ds-hunter2}]
`

// TestEnvValuesDropped checks that the literal values of environment
// variables are written only when the header says they are kept, and
// that references to Secrets are written as they are.
func TestEnvValuesDropped(t *testing.T) {
	c, r := mustLoad(t, "t.yaml", envPods)
	if len(r.Problems) != 0 {
		t.Fatalf("problems:\n%s", r)
	}
	for _, tc := range []struct {
		envValues string
		kept      bool
	}{{EnvValuesDropped, false}, {EnvValuesKept, true}, {"", true}} {
		for _, path := range writeEach(t, t.TempDir(), c, Header{EnvValues: tc.envValues}) {
			name := tc.envValues + "/" + filepath.Base(path)
			data := mustRead(t, path)
			if got := bytes.Contains(data, []byte("hunter2")); got != tc.kept {
				t.Errorf("%s: holds the values: %v, want %v", name, got, tc.kept)
			}
			o, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if o.Header.EnvValues != tc.envValues {
				t.Errorf("%s: env-values %q, want %q", name, o.Header.EnvValues, tc.envValues)
			}
			pods := []*v1.Pod{o.Cluster.Pods[0]}
			for _, ch := range o.Changes {
				pods = append(pods, ch.Object.(*v1.Pod))
			}
			for _, p := range pods {
				env := p.Spec.Containers[0].Env
				if (env[0].Value == "hunter2") != tc.kept || env[0].Name != "DB_PASSWORD" ||
					env[1].ValueFrom == nil || env[1].ValueFrom.SecretKeyRef == nil || env[1].ValueFrom.SecretKeyRef.Key != "password" ||
					len(p.Spec.Containers[0].EnvFrom) != 1 {
					t.Errorf("%s: the pod's env is read back as %+v", name, env)
				}
				if _, has := p.Annotations[v1.LastAppliedConfigAnnotation]; has != tc.kept || p.Annotations["keep"] != "me" {
					t.Errorf("%s: the pod's annotations are read back as %v", name, p.Annotations)
				}
			}
		}
	}
	// The cluster written is not changed.
	if c.Pods[0].Spec.Containers[0].Env[0].Value != "hunter2" || c.DaemonSets[0].Spec.Template.Spec.Containers[0].Env[0].Value != "ds-hunter2" ||
		c.Pods[0].Annotations[v1.LastAppliedConfigAnnotation] == "" {
		t.Error("writing changed the cluster's objects")
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@h:1/x":    "https://u:xxxxx@h:1/x",
		"https://u@h/x":        "https://u@h/x",
		"https://h/x?a=b@c":    "https://h/x?a=b@c",
		"snapshots/a@b.yaml":   "snapshots/a@b.yaml",
		"https://u:xxxxx@h/x":  "https://u:xxxxx@h/x",
		"https://u:p%40q@h/x/": "https://u:xxxxx@h/x/",
	} {
		if got, _ := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
	if !strings.Contains(redactHeader(Header{SchedulerConfig: "keyData: [unclosed"}).Redacted, "does not parse") {
		t.Error("an unparsable configuration that may hold a key is written")
	}
}
