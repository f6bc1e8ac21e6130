// Package helper holds what several plugins share.
package helper

import "github.com/schedtui/schedtui/scheduler/framework"

// DefaultNormalizeScore scales scores so the highest becomes maxPriority;
// with reverse, high raw scores become low ones. All-zero scores stay 0,
// or become maxPriority with reverse.
func DefaultNormalizeScore(maxPriority int64, reverse bool, scores framework.NodeScoreList) *framework.Status {
	var maxCount int64
	for i := range scores {
		maxCount = max(maxCount, scores[i].Score)
	}
	if maxCount == 0 {
		if reverse {
			for i := range scores {
				scores[i].Score = maxPriority
			}
		}
		return nil
	}
	for i := range scores {
		s := maxPriority * scores[i].Score / maxCount
		if reverse {
			s = maxPriority - s
		}
		scores[i].Score = s
	}
	return nil
}
