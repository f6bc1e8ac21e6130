package history

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedtui/schedtui/scheduler/record"
)

// TestArchivedObservationTextsBounded: archived observations keep their
// texts for the newest ones only, so that they stop growing with the
// decisions; an older one keeps everything else and says its explanation
// went.
func TestArchivedObservationTextsBounded(t *testing.T) {
	defer func(n int) { observationTextsKept = n }(observationTextsKept)
	observationTextsKept = 4
	var attempts []*record.Attempt
	var o observationArchive
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const rows = 100
	for k := range rows {
		attempts = append(attempts, &record.Attempt{Pod: fmt.Sprintf("default/p%d", k)})
		o.add(Event{Kind: EventObserved, Time: at.Add(time.Duration(k) * time.Second), Pod: fmt.Sprintf("default/p%d", k), Attempt: k,
			Reason: "agree", Node: "n1", Predicted: "n1", Message: fmt.Sprintf("why %d", k), Uncertain: fmt.Sprintf("uncertain %d", k),
			Judged: &JudgedOn{Bound: k, InFlight: []string{fmt.Sprintf("default/q%d", k)}, AsOf: fmt.Sprintf("as of %d", k)}})
	}
	log := AttemptsOf(attempts...)
	if kept := len(o.message.ends); kept >= 2*observationTextsKept || kept < observationTextsKept {
		t.Fatalf("%d rows keep their texts, want %d to %d", kept, observationTextsKept, 2*observationTextsKept-1)
	}
	for k := range rows {
		ev := o.event(k, log)
		if ev.Pod != fmt.Sprintf("default/p%d", k) || ev.Node != "n1" || ev.Reason != "agree" || ev.Judged == nil || ev.Judged.Bound != k ||
			!ev.Time.Equal(at.Add(time.Duration(k)*time.Second)) {
			t.Fatalf("row %d lost more than its texts: %+v", k, ev)
		}
		texts := ev.Message == fmt.Sprintf("why %d", k) && ev.Uncertain == fmt.Sprintf("uncertain %d", k) &&
			ev.Judged.AsOf == fmt.Sprintf("as of %d", k) && len(ev.Judged.InFlight) == 1
		switch {
		case k >= rows-observationTextsKept && !texts:
			t.Errorf("row %d, among the newest, lost its texts: %+v", k, ev)
		case k < rows-2*observationTextsKept && (texts || ev.Message != textsDropped || ev.Uncertain != "" || ev.Judged.AsOf != ""):
			t.Errorf("row %d kept its texts, or does not say they went: %+v", k, ev)
		}
	}
}
