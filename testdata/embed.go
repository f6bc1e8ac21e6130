// Package testdata holds schedtui's snapshots and scenarios; the demo
// snapshot is embedded in the binary so that `schedtui` opens with no
// arguments.
package testdata

import "embed"

// DemoName is the embedded demo's file name, used in messages.
const DemoName = "testdata/demo.yaml"

// DemoFeatureGates are the --feature-gates of the demo's kube-scheduler:
// its training job is a gang (workload-aware scheduling).
const DemoFeatureGates = "GenericWorkload=true"

// Demo is the embedded demo snapshot.
//
//go:embed demo.yaml
var Demo []byte

// DemoPackingName is the name the demo's second scheduler configuration
// goes by (schedtui compare --right demo-packing, --compare-with).
const DemoPackingName = "demo-packing"

// DemoPacking is that configuration: MostAllocated with a higher
// PodTopologySpread weight (see the file).
//
//go:embed demo-packing.yaml
var DemoPacking []byte

// Learn holds schedtui learn's scenarios, one small snapshot per lesson
// (tui.Lessons names each lesson's file).
//
//go:embed learn/*.yaml
var Learn embed.FS
