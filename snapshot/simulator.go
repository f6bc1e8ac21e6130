package snapshot

// kube-scheduler-simulator's export (GET /api/v1/export, the "Export"
// button): one JSON object whose keys hold arrays of typed objects without
// apiVersion and kind, and the simulator's scheduler configuration:
//
//	{"pods":[...],"nodes":[...],"pvs":[...],"pvcs":[...],"storageClasses":[...],
//	 "priorityClasses":[...],"schedulerConfig":{...},"namespaces":[...]}
//
// (sigs.k8s.io/kube-scheduler-simulator/simulator/export.ResourcesForExport).
// Its import (ResourcesForImport) reads the same keys and no others: it
// has none for Workloads, PodGroups or CompositePodGroups, so a gang's
// objects do not travel in it, and schedtui reads no such keys.

import (
	"bytes"
	"encoding/json"
	"sort"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/schedtui/schedtui/internal/docread"
)

// simulatorKeys maps the export's array keys to the kind of their items, in
// the order they are loaded (the simulator's import order).
var simulatorKeys = []struct{ key, kind string }{
	{"namespaces", "Namespace"},
	{"priorityClasses", "PriorityClass"},
	{"storageClasses", "StorageClass"},
	{"pvcs", "PersistentVolumeClaim"},
	{"pvs", "PersistentVolume"},
	{"nodes", "Node"},
	{"pods", "Pod"},
}

const simulatorConfigKey = "schedulerConfig"

// simulatorExport returns the top-level keys of data when it is a
// kube-scheduler-simulator export: an object without apiVersion and kind
// holding at least one of the export's keys.
func simulatorExport(data []byte) (map[string]json.RawMessage, bool) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, false
	}
	if _, ok := top["apiVersion"]; ok {
		return nil, false
	}
	if _, ok := top["kind"]; ok {
		return nil, false
	}
	if _, ok := top[simulatorConfigKey]; ok {
		return top, true
	}
	for _, k := range simulatorKeys {
		if _, ok := top[k.key]; ok {
			return top, true
		}
	}
	return nil, false
}

// addSimulatorExport loads the objects of an export and keeps its
// scheduler configuration.
func (l *Loader) addSimulatorExport(d docread.Document, top map[string]json.RawMessage) {
	l.sawSimulatorExport = true
	known := map[string]bool{simulatorConfigKey: true}
	// How far the document is: the bytes of the objects' arrays added.
	var arrays, added int
	for _, k := range simulatorKeys {
		arrays += len(top[k.key])
	}
	for _, k := range simulatorKeys {
		known[k.key] = true
		raw, ok := top[k.key]
		if !ok || isJSONNull(raw) {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			l.report.Errorf(d.File, d.Line, "", k.key, "must be an array of %s objects (kube-scheduler-simulator export)", k.kind)
			continue
		}
		var lines []int
		if d.KeyItemLines != nil && len(items) > 0 {
			if ls := d.KeyItemLines(k.key); len(ls) == len(items) {
				lines = ls
			}
		}
		ki := supportedKinds[k.kind]
		for i, it := range items {
			line := d.Line
			if lines != nil {
				line = lines[i]
			}
			restore := l.enterItem(k.key, i, !lineTellsItem(lines, i))
			l.addDoc(d.File, line, withTypeMeta(it, ki.gv.String(), ki.kind), nil, 1)
			restore()
			added += len(it)
			l.meter.within(added, arrays)
		}
	}
	var unknown []string
	for k := range top {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		l.report.Warnf(d.File, d.Line, "", k, "key of the kube-scheduler-simulator export is not read by schedtui (ignored)")
	}
	if raw, ok := top[simulatorConfigKey]; ok && !isJSONNull(raw) {
		// A copy: the file's bytes may be given back after the load
		// (fileBuffer), and the configuration is parsed after.
		cfg := bytes.Clone(withTypeMeta(raw, configv1.SchemeGroupVersion.String(), "KubeSchedulerConfiguration"))
		l.configs = append(l.configs, EmbeddedConfig{
			File: d.File, Line: d.Line, Where: simulatorConfigKey + " of the kube-scheduler-simulator export", Data: cfg,
		})
	}
}

func isJSONNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}
