package main

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedtui/schedtui/snapshot"
)

// TestSnapshotEnvValues: the pods' literal environment variable values
// are written only with --keep-env-values, and the header says which.
func TestSnapshotEnvValues(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.yaml")
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: img\n" +
		"    env:\n    - {name: DB_PASSWORD, value: hunter2}\n    - name: FROM_SECRET\n      valueFrom: {secretKeyRef: {name: db, key: password}}\n"
	if err := os.WriteFile(src, []byte(pod), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(from, to string, args ...string) (string, *snapshot.Opened) {
		t.Helper()
		out := filepath.Join(dir, to)
		if _, stderr, err := runCmd(t, newSnapshotCommand, append([]string{"--snapshot", from, "-o", out}, args...)...); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		o, err := snapshot.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		if env := o.Cluster.Pods[0].Spec.Containers[0].Env; len(env) != 2 || env[1].ValueFrom == nil {
			t.Errorf("%s: env read back as %+v", to, env)
		}
		return string(data), o
	}
	data, o := write(src, "dropped.yaml")
	if strings.Contains(data, "hunter2") || o.Header.EnvValues != snapshot.EnvValuesDropped || !strings.Contains(data, "# env-values: dropped") {
		t.Errorf("by default: env-values %q, the value written: %v", o.Header.EnvValues, strings.Contains(data, "hunter2"))
	}
	data, o = write(src, "kept.json", "--keep-env-values")
	if !strings.Contains(data, "hunter2") || o.Header.EnvValues != snapshot.EnvValuesKept {
		t.Errorf("--keep-env-values: env-values %q, the value written: %v", o.Header.EnvValues, strings.Contains(data, "hunter2"))
	}
	// A snapshot that dropped them cannot give them back.
	if _, o = write(filepath.Join(dir, "dropped.yaml"), "again.yaml", "--keep-env-values"); o.Header.EnvValues != snapshot.EnvValuesDropped {
		t.Errorf("converting a snapshot that dropped them: env-values %q", o.Header.EnvValues)
	}
}

// TestSnapshotConfigSecrets: a live capture's header records --config
// without its extender's private key and its URL's password.
func TestSnapshotConfigSecrets(t *testing.T) {
	fakeCluster(t)
	existingKubeconfig(t)
	dir := t.TempDir()
	keyData := base64.StdEncoding.EncodeToString([]byte("-----BEGIN PRIVATE KEY-----\nthe-key\n-----END PRIVATE KEY-----\n"))
	cfg := filepath.Join(dir, "sched.yaml")
	if err := os.WriteFile(cfg, []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n"+
		"- urlPrefix: https://u:the-password@extender.example/scheduler\n  filterVerb: filter\n  weight: 1\n  tlsConfig: {keyData: "+keyData+"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "snap.yaml")
	if _, stderr, err := runCmd(t, newSnapshotCommand, "-o", out, "--config", cfg); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{keyData, "the-password"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the snapshot holds %q", secret)
		}
	}
	if !strings.Contains(string(data), "# redacted: ") {
		t.Errorf("the header does not say what it left out:\n%.1500s", data)
	}
}

// TestRecordEnvValues: record writes the pods' literal environment
// variable values only with --keep-env-values.
func TestRecordEnvValues(t *testing.T) {
	for _, keep := range []bool{false, true} {
		client := fakeCluster(t)
		existingKubeconfig(t)
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "with-env", UID: "u-env", ResourceVersion: "2"},
			Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Containers: []v1.Container{{Name: "c", Image: "x",
				Env: []v1.EnvVar{{Name: "DB_PASSWORD", Value: "hunter2"}}}}}}
		if _, err := client.CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		rec := filepath.Join(t.TempDir(), "rec.json")
		args := []string{"-o", rec, "--for", "100ms"}
		if keep {
			args = append(args, "--keep-env-values")
		}
		if _, errOut, err := runCmd(t, newRecordCommand, args...); err != nil {
			t.Fatalf("%v\n%s", err, errOut)
		}
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		o, err := snapshot.Open(rec)
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{false: snapshot.EnvValuesDropped, true: snapshot.EnvValuesKept}[keep]
		if strings.Contains(string(data), "hunter2") != keep || o.Header.EnvValues != want || len(o.Cluster.Pods) != 2 {
			t.Errorf("--keep-env-values %v: env-values %q, the value written: %v, %d pods", keep, o.Header.EnvValues,
				strings.Contains(string(data), "hunter2"), len(o.Cluster.Pods))
		}
	}
}
