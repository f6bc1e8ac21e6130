package main

import "testing"

// The GPU example: the H100 nobody has, the A100s held by a lower-priority
// pod (no preemption for devices), the prioritized list falling back to
// the L4.
func TestRunDRAExample(t *testing.T) {
	checkCmd(t, newRunCommand, []string{"--snapshot", "../../testdata/dra-gpus.yaml"}, cmdWant{stdout: []string{
		"default/trainer                          Unschedulable -  0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
		"default/finetune                         Unschedulable -  0/2 nodes are available: 2 cannot allocate all claims.",
		"default/inference                        Scheduled     gpu-b",
	}, notStderr: []string{"error", "warning"}})
}

// The demo's three GPU pods, as explain tells them: the H100 no node has
// (naming the models present), the A100s a lower-priority pod holds (no
// preemption for devices), the prioritized list's second choice.
func TestExplainDemoGPUPods(t *testing.T) {
	checkCmd(t, newExplainCommand, []string{"--demo", "default/gpu-h100"}, cmdWant{stdout: []string{
		"Outcome:    Unschedulable",
		"4 × cannot allocate all claims (DynamicResources)",
		"no device of class gpu.example.com has model h100; the models present are a100, l4",
	}})
	checkCmd(t, newExplainCommand, []string{"--demo", "default/gpu-finetune"}, cmdWant{stdout: []string{
		"Outcome:    Unschedulable",
		"claim default/gpu-finetune-gpus request gpus (2 × gpu.example.com): node-a2 has 0 free of 2 requested (gpu-0, gpu-1 held by default/gpu-batch-gpus (pod default/gpu-batch))",
		"a lower-priority holder is never preempted for devices (DynamicResources rejects UnschedulableAndUnresolvable)",
		"no candidate node: evicting lower-priority pods would not help on any node",
	}})
	checkCmd(t, newExplainCommand, []string{"--demo", "default/gpu-inference"}, cmdWant{stdout: []string{
		"Outcome:    Scheduled",
		"Node:       node-a2",
		"Claim:      default/gpu-inference-gpu: gpu/l4 → gpu.example.com/node-a2/gpu-2 (choice 2 of a100, l4)",
	}})
}
