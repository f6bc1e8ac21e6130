package snapshot

import (
	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/internal/progress"
)

// loadMeter tells a progress.Reporter how far a load is: the bytes of the
// snapshot's files (their sizes on disk, compressed or not) loaded, of all
// of them. A file counts as loaded in proportion to the objects added from
// it: its documents by the length of their JSON, a List's items by their
// number, a recording's changes by theirs. Reading a file and splitting it
// into documents come first: they are the quick part of a JSON file and do
// not move the count, but most of a YAML one (converting it to JSON), which
// has yamlConversionShare of the file, in proportion to the bytes of YAML
// converted (docread.ReadDocumentsReporting), the objects added the rest.
//
// A nil *loadMeter reports nothing (Load, the demo, a live cluster).
type loadMeter struct {
	p progress.Reporter
	// total is the bytes of every file to load, base of those loaded.
	total, base int64
	// size is the file loading's; lo and hi the share of it the step
	// under way covers (a recording: its initial state, then its changes).
	size   int64
	lo, hi float64
	// The documents of the step: the length of their JSON, of those
	// added, and of the one being added.
	docsLen, docsDone, docLen int64
}

func newLoadMeter(p progress.Reporter) *loadMeter {
	if p == nil {
		return nil
	}
	return &loadMeter{p: p}
}

// setTotal is the bytes of all the files to load, known once they are
// listed.
func (m *loadMeter) setTotal(n int64) {
	if m != nil {
		m.total = n
		m.report(0)
	}
}

// startFile begins a file of size bytes.
func (m *loadMeter) startFile(size int64) {
	if m != nil {
		m.size, m.lo, m.hi = size, 0, 1
	}
}

// endFile counts the file loading as loaded.
func (m *loadMeter) endFile() {
	if m != nil {
		m.base += m.size
		m.size = 0
		m.report(0)
	}
}

// step narrows what the next reports cover to the share [lo, hi) of the
// file loading.
func (m *loadMeter) step(lo, hi float64) {
	if m != nil {
		m.lo, m.hi = lo, hi
		m.docsLen, m.docsDone, m.docLen = 0, 0, 0
	}
}

// report tells how far the step under way is (f of it, 0 to 1).
func (m *loadMeter) report(f float64) {
	if m == nil {
		return
	}
	at := m.lo + (m.hi-m.lo)*min(1, max(0, f))
	m.p.Report(m.base+int64(float64(m.size)*at), m.total)
}

// documents begins adding docs, the step's documents.
func (m *loadMeter) documents(docs []docread.Document) {
	if m == nil {
		return
	}
	m.docsLen, m.docsDone = 0, 0
	for i := range docs {
		m.docsLen += int64(len(docs[i].JSON))
	}
}

// wholeDocument begins adding a step that is one document of n bytes (a
// protobuf List).
func (m *loadMeter) wholeDocument(n int) {
	if m != nil {
		m.docsLen, m.docsDone, m.docLen = int64(n), 0, int64(n)
	}
}

// document begins adding a document of n bytes of JSON.
func (m *loadMeter) document(n int) {
	if m != nil {
		m.docLen = int64(n)
	}
}

// within reports done of the document's n parts (a List's items) added.
func (m *loadMeter) within(done, n int) {
	if m == nil || m.docsLen == 0 || n == 0 {
		return
	}
	m.report((float64(m.docsDone) + float64(m.docLen)*float64(done)/float64(n)) / float64(m.docsLen))
}

// documentDone counts the document being added as added.
func (m *loadMeter) documentDone() {
	if m == nil || m.docsLen == 0 {
		return
	}
	m.docsDone += m.docLen
	m.docLen = 0
	m.report(float64(m.docsDone) / float64(m.docsLen))
}

// yamlConversionShare is the share of a YAML file's load that converting it
// to JSON takes: 0.80 to 0.87 of OpenReporting's time on a 20 MiB List,
// 0.89 to 0.90 on an 80 MiB one (BenchmarkOpenYAML, convert-share).
const yamlConversionShare = 0.85

// yamlConversion begins reading a file: if it turns out to be YAML
// (converted is called), converting it covers the first
// yamlConversionShare of the step under way; added narrows the step to the
// rest, where its documents are added. converted is nil when m is.
func (m *loadMeter) yamlConversion() (converted func(done, total int), added func()) {
	if m == nil {
		return nil, func() {}
	}
	lo, hi := m.lo, m.hi
	mid := lo + (hi-lo)*yamlConversionShare
	yaml := false
	converted = func(done, total int) {
		if !yaml {
			yaml = true
			m.step(lo, mid)
		}
		if total > 0 {
			m.report(float64(done) / float64(total))
		}
	}
	added = func() {
		if yaml {
			m.step(mid, hi)
		}
	}
	return converted, added
}
