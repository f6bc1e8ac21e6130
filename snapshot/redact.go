package snapshot

// What a written snapshot or recording leaves out: the secrets its header
// would copy from the scheduler configuration and the capture's source,
// and, unless the capture says it keeps them, the literal values of the
// pods' environment variables. Neither affects scheduling.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// Header.EnvValues: whether the pods' literal environment variable values
// (env[].value) were written. "" writes the objects as they are.
const (
	// EnvValuesDropped: each env[].value is written empty (valueFrom, a
	// reference, is kept as it is): such values often hold passwords and
	// tokens, and scheduling never reads them. The
	// kubectl.kubernetes.io/last-applied-configuration annotation of the
	// objects with a pod template, a copy of them with their values, is
	// left out too.
	EnvValuesDropped = "dropped"
	// EnvValuesKept: they were kept on request (schedtui snapshot or
	// record --keep-env-values).
	EnvValuesKept = "kept"
)

// redactedPassword replaces a password in a URL, as net/url's Redacted.
const redactedPassword = "xxxxx"

// redactHeader is h without the secrets it would write: the password of a
// URL (user:password@) in its source and in the scheduler configuration's
// extenders' urlPrefix, and an extender's TLS private key (tlsConfig.keyData;
// without it the extender is called without a client certificate). Its
// Redacted field says what was taken out.
func redactHeader(h Header) Header {
	var taken []string
	if h.Redacted != "" {
		// A converted capture keeps what its own writer took out.
		taken = append(taken, h.Redacted)
	}
	if s, ok := redactURL(h.Source); ok {
		h.Source = s
		taken = append(taken, "the password of the source's URL")
	}
	if h.SchedulerConfig != "" {
		cfg, what := redactSchedulerConfig(h.SchedulerConfig)
		h.SchedulerConfig = cfg
		taken = append(taken, what...)
	}
	h.Redacted = strings.Join(taken, "; ")
	return h
}

// redactURL replaces the password of s, a URL with user:password@, and
// reports whether it did.
func redactURL(s string) (string, bool) {
	if !strings.Contains(s, "@") {
		return s, false
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s, false
	}
	if pw, has := u.User.Password(); !has || pw == redactedPassword {
		return s, false
	}
	u.User = url.UserPassword(u.User.Username(), redactedPassword)
	return u.String(), true
}

// redactSchedulerConfig is a KubeSchedulerConfiguration's text without
// its extenders' TLS private keys and URL passwords, and what was taken
// out. A configuration without them is returned as it is; one with them
// is written again (as JSON if it was JSON, else as YAML: its comments
// are lost). One that does not parse is left out whole when it may hold
// either.
func redactSchedulerConfig(text string) (string, []string) {
	if !containsFold(text, "keydata") && !strings.Contains(text, "@") {
		return text, nil
	}
	var cfg map[string]any
	j, err := yaml.YAMLToJSON([]byte(text))
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(j))
		dec.UseNumber() // numbers are written back as they were
		err = dec.Decode(&cfg)
	}
	if err != nil || cfg == nil {
		return "", []string{"the scheduler configuration, which does not parse and may hold an extender's private key or a password in a URL"}
	}
	var taken []string
	extenders, _ := member(cfg, "extenders").([]any)
	for i, e := range extenders {
		ext, _ := e.(map[string]any)
		if ext == nil {
			continue
		}
		for k, v := range ext {
			if s, ok := v.(string); ok && strings.EqualFold(k, "urlPrefix") {
				if r, ok := redactURL(s); ok {
					ext[k] = r
					taken = append(taken, fmt.Sprintf("the password of the scheduler configuration's extenders[%d].urlPrefix", i))
				}
			}
		}
		tls, _ := member(ext, "tlsConfig").(map[string]any)
		for k, v := range tls {
			if strings.EqualFold(k, "keyData") && v != nil && v != "" {
				delete(tls, k)
				taken = append(taken, fmt.Sprintf("the scheduler configuration's extenders[%d].tlsConfig.keyData", i))
			}
		}
	}
	if len(taken) == 0 {
		return text, nil
	}
	out, err := json.MarshalIndent(cfg, "", "  ")
	if err == nil && !strings.HasPrefix(strings.TrimSpace(text), "{") {
		out, err = yaml.JSONToYAML(out)
	}
	if err != nil {
		return "", []string{"the scheduler configuration, which could not be written again without its secrets"}
	}
	return string(out), taken
}

// member is m's member named name, in any case (a strict decoder would
// refuse another case, but a secret is not to be written either way).
func member(m map[string]any, name string) any {
	if v, ok := m[name]; ok {
		return v
	}
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return nil
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}

// dropEnvValues empties the literal environment variable values of the
// pod spec o holds (a pod's, or a workload's template's) and drops its
// last-applied-configuration annotation, in place (see EnvValuesDropped).
// Other objects are left alone.
func dropEnvValues(o runtime.Object) {
	spec := apiserver.PodSpecOf(o)
	if spec == nil {
		return
	}
	if acc, ok := o.(metav1.Object); ok {
		delete(acc.GetAnnotations(), v1.LastAppliedConfigAnnotation)
	}
	emptyValues := func(env []v1.EnvVar) {
		for i := range env {
			env[i].Value = ""
		}
	}
	for i := range spec.InitContainers {
		emptyValues(spec.InitContainers[i].Env)
	}
	for i := range spec.Containers {
		emptyValues(spec.Containers[i].Env)
	}
	for i := range spec.EphemeralContainers {
		emptyValues(spec.EphemeralContainers[i].Env)
	}
}
