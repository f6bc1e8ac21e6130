package scheduler

import (
	"fmt"
	"math/rand/v2"
)

// ResumeState is what the scheduler carries from one attempt to the next
// besides the cluster: where the next node scan starts (upstream's
// nextStartNodeIndex) and the random source's state (preemption's
// candidate offset draws from it). A state written at an attempt records
// them so that a run over it breaks ties as the attempt did.
func (s *Scheduler) ResumeState() (nextStart int, random []byte, err error) {
	if s.hooks.pcg != nil {
		if random, err = s.hooks.pcg.MarshalBinary(); err != nil {
			return 0, nil, err
		}
	}
	return s.nextStartNodeIndex, random, nil
}

// SetResumeState restores what ResumeState returned; a nil random keeps
// the current source. A start beyond the node list starts at the first
// node, as after a node removal.
func (s *Scheduler) SetResumeState(nextStart int, random []byte) error {
	if nextStart < 0 || nextStart >= s.snapshot.NumNodes() {
		nextStart = 0
	}
	s.nextStartNodeIndex = nextStart
	return s.usePCGState(random)
}

// usePCGState makes the random source continue from a state ResumeState
// or CaptureState took; nil keeps the current source.
func (s *Scheduler) usePCGState(b []byte) error {
	if b == nil {
		return nil
	}
	p := &rand.PCG{}
	if err := p.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("restoring the random source: %w", err)
	}
	s.UsePCG(p)
	return nil
}
