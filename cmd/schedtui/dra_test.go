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
