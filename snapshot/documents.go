package snapshot

// Step 2 of reading a snapshot: its documents. The files of a directory or
// a cluster-info dump, each file's bytes (gunzipped) split into documents
// (internal/docread: YAML and JSON streams; protobuf.go: a protobuf List),
// and every List into its items, read and decoded ahead on several
// goroutines; then each object goes to decode.go.

import (
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// loadAs reads path, of the given format (not a recording), into the
// loader.
func (l *Loader) loadAs(path string, format Format) error {
	switch format {
	case FormatClusterInfoDump:
		return l.loadClusterInfoDump(path, clusterInfoDumpNodes(path))
	case FormatDirectory:
		return l.loadDir(path)
	}
	if fi, err := os.Stat(path); err == nil {
		l.meter.setTotal(fi.Size())
	}
	return l.LoadFile(path)
}

// loadFiles loads every file, reporting the ones that do not parse.
func (l *Loader) loadFiles(dir string, files []string) error {
	if len(files) == 0 {
		return &docread.ParseError{File: dir, Msg: "no snapshot files in the directory (looked for *.yaml, *.yml, *.json, *.pb, optionally gzipped as *.gz)"}
	}
	if l.meter != nil {
		var total int64
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				total += fi.Size()
			}
		}
		l.meter.setTotal(total)
	}
	for _, f := range files {
		if l.loadRecordingInDirectory(f) {
			continue
		}
		if err := l.LoadFile(f); err != nil {
			l.reportSkippedFile(f, err)
		}
	}
	return nil
}

// reportSkippedFile reports a file of a directory that could not be read
// at all.
func (l *Loader) reportSkippedFile(path string, err error) {
	var pe *docread.ParseError
	if errors.As(err, &pe) {
		l.report.Errorf(pe.File, pe.Line, "", "", "%s; the file is skipped", pe.Msg)
	} else {
		l.report.Errorf(path, 0, "", "", "%v; the file is skipped", err)
	}
}

// loadDir reads every snapshot file under dir, recursively, in lexical
// order of their paths. Hidden files and directories are skipped;
// symbolic links are followed within dir (walk.go).
func (l *Loader) loadDir(dir string) error {
	w, err := l.newDirWalker(dir)
	if err != nil {
		return &docread.ParseError{File: dir, Msg: "cannot read directory: " + err.Error(), Err: err}
	}
	var files []string
	var walk func(p string) error
	walk = func(p string) error {
		entries, err := w.entries(p)
		if err != nil {
			return err
		}
		for _, e := range entries {
			switch {
			case e.dir:
				if err := walk(e.path); err != nil {
					l.report.Errorf(e.path, 0, "", "", "cannot read: %v; skipped", err)
				}
			case e.regular && IsSnapshotFileName(e.name):
				files = append(files, e.path)
			}
		}
		return nil
	}
	if err := walk(dir); err != nil {
		return &docread.ParseError{File: dir, Msg: "cannot read directory: " + err.Error(), Err: err}
	}
	return l.loadFiles(dir, files)
}

// loadClusterInfoDump reads nodes.json, then every namespace directory's
// Lists (pods.json, services.json, replicasets.json, daemonsets.json,
// ...) in sorted order, skipping events and the per-pod log directories.
func (l *Loader) loadClusterInfoDump(dir, nodes string) error {
	files := []string{nodes}
	w, err := l.newDirWalker(dir)
	var entries []entry
	if err == nil {
		entries, err = w.entries(dir)
	}
	if err != nil {
		return &docread.ParseError{File: dir, Msg: "cannot read directory: " + err.Error(), Err: err}
	}
	var top []string
	for _, e := range entries {
		switch {
		case e.path == nodes:
		case e.dir:
			nsFiles, err := w.entries(e.path)
			if err != nil {
				l.report.Errorf(e.path, 0, "", "", "cannot read: %v; skipped", err)
				continue
			}
			for _, f := range nsFiles {
				// Subdirectories hold pod logs.
				if f.regular && IsSnapshotFileName(f.name) && !dumpSkipped(f.name) {
					top = append(top, f.path)
				}
			}
		case e.regular && IsSnapshotFileName(e.name) && !dumpSkipped(e.name):
			top = append(top, e.path)
		}
	}
	sort.Strings(top)
	return l.loadFiles(dir, append(files, top...))
}

// maxListDepth bounds Lists nested inside Lists.
const maxListDepth = 4

// LoadFile reads one file into the loader. On error nothing from the file
// is added, but for a big file cut short by another program while its
// objects are being added (guardMappedFile): those added before stay.
func (l *Loader) LoadFile(path string) (err error) {
	data, buf, err := l.budget.readBuffered(path, true)
	if err != nil {
		return err
	}
	if buf != nil {
		l.file = buf
		defer func() {
			l.file = nil
			buf.free()
		}()
		if buf.fileBacked {
			defer guardMappedFile(path, &err)()
		}
	}
	l.meter.startFile(int64(len(data)))
	defer l.meter.endFile()
	return l.LoadData(path, data)
}

// LoadData parses data (see LoadFile) and adds its objects. On error
// nothing from data is added.
func (l *Loader) LoadData(name string, data []byte) error {
	if docread.IsGzip(data) {
		plain, err := l.budget.gunzip(name, data, false)
		var pe *docread.ParseError
		if errors.As(err, &pe) {
			return err
		}
		if err != nil {
			return &docread.ParseError{File: name, Msg: err.Error(), Err: err}
		}
		data = plain
	}
	if IsProtobuf(data) {
		return l.loadProtobuf(name, data)
	}
	if plain, n := docread.WithoutDumpLogs(data); n > 0 {
		data = plain
		l.report.Warnf(name, 0, "", "", "kubectl cluster-info dump output: the logs of %d containers between its Lists are skipped "+
			"(with --output-directory the dump writes them to files of their own)", n)
	}
	converted, added := l.meter.yamlConversion()
	docs, err := docread.ReadDocumentsReporting(name, data, converted)
	if err != nil {
		return err
	}
	added()
	if h, line, ok := headerFromComment(data); ok {
		l.addHeader(name, line, h)
	}
	if len(docs) == 0 {
		l.report.Warnf(name, 0, "", "", "no objects found")
	}
	l.documents += len(docs)
	l.meter.documents(docs)
	for _, d := range docs {
		l.meter.document(len(d.JSON))
		l.AddDocument(d)
		l.meter.documentDone()
	}
	return nil
}

// AddDocument decodes one document (an object or a List) and adds its
// objects.
func (l *Loader) AddDocument(d docread.Document) {
	for _, w := range d.Warnings {
		l.report.Warnf(d.File, w.Line, "", "", "%s", w.Message)
	}
	if d.Err != nil {
		l.report.Errorf(d.File, d.Line, "", "", "%v", d.Err)
		return
	}
	members := d.Members()
	ok := members != nil
	if !ok {
		members, ok = docread.ScanMembers(d.JSON, true)
	}
	if !ok {
		// Not a JSON object the scanner takes: the encoding/json path
		// reports it (or reads a document nested very deep).
		if top, ok := simulatorExport(d.JSON); ok {
			l.addSimulatorExport(d, top)
			return
		}
		if h, ok := listHeader(d.JSON); ok {
			l.addHeader(d.File, d.Line, h)
		}
		l.addDoc(d.File, d.Line, d.JSON, d.ItemLines, 0)
		return
	}
	if !hasMember(members, "apiVersion") && !hasMember(members, "kind") {
		if top, ok := simulatorExport(d.JSON); ok {
			l.addSimulatorExport(d, top)
			return
		}
	}
	if sub := listHeaderInput(d.JSON, members); sub != nil {
		if h, ok := listHeader(sub); ok {
			l.addHeader(d.File, d.Line, h)
		}
	}
	h := docread.HeaderFromMembers(d.JSON, members)
	itemLines := func(*docread.ObjectHeader) []int {
		if d.ItemLines == nil {
			return nil
		}
		return d.ItemLines()
	}
	if _, ok := d.LinesAt(nil); ok {
		// Count lines from the document's own position instead.
		itemLines = func(h *docread.ObjectHeader) []int {
			lines, _ := d.LinesAt(h.ItemOffs)
			return lines
		}
	}
	l.addParsed(d.File, d.Line, d.JSON, h, itemLines, 0)
}

func hasMember(members []docread.Member, key string) bool {
	for _, m := range members {
		if m.Key == key {
			return true
		}
	}
	return false
}

// addDoc adds the objects of one document: an object or a List. itemLines,
// if not nil, returns the lines of a List's items.
func (l *Loader) addDoc(file string, line int, data []byte, itemLines func() []int, depth int) {
	h, err := docread.ReadHeader(data)
	if err != nil {
		l.report.Errorf(file, line, "", "", "%v", err)
		return
	}
	var lines func(*docread.ObjectHeader) []int
	if itemLines != nil {
		lines = func(*docread.ObjectHeader) []int { return itemLines() }
	}
	l.addParsed(file, line, data, h, lines, depth)
}

// addParsed is addDoc once the header is read; itemLines, if not nil,
// returns the lines of a List's items.
func (l *Loader) addParsed(file string, line int, data []byte, h docread.ObjectHeader, itemLines func(*docread.ObjectHeader) []int, depth int) {
	if !h.IsList() {
		l.addEncoded(file, line, data, h)
		return
	}
	if depth >= maxListDepth {
		l.report.Errorf(file, line, h.Kind, "items", "Lists nested more than %d deep are not supported", maxListDepth)
		return
	}
	if h.ItemsInvalid {
		l.report.Errorf(file, line, h.Kind, "items", "must be an array of objects")
		return
	}
	var lines []int
	if itemLines != nil && len(h.Items) > 0 {
		if ls := itemLines(&h); len(ls) == len(h.Items) {
			lines = ls
		}
	}
	if depth == 0 {
		// The List is scanned and its items' lines counted: the file
		// need not stay resident under the items decoded from it.
		l.file.dropResident()
	}
	itemKind, itemAPIVersion := "", ""
	if h.Kind != "List" {
		itemKind, itemAPIVersion = strings.TrimSuffix(h.Kind, "List"), h.APIVersion
	}
	l.addItems(file, line, lines, h.Items, h.ItemMembers, itemAPIVersion, itemKind, depth+1)
}

// parallelMinItems is the size from which a List's items are decoded by
// several goroutines, in chunks of itemChunk (a variable for the tests).
var parallelMinItems = 64

const itemChunk = 32

// itemWork is an item of a List read and decoded ahead of adding it.
type itemWork struct {
	data []byte
	h    docread.ObjectHeader
	err  error
	dec  *decoded // nil when the item is not decoded ahead
}

// prepareItem does for one List item what needs nothing of the loader:
// filling in a typed List's apiVersion and kind, reading the header and
// decoding an object of a supported kind. members, if not nil, are the
// item's members as the List's scan recorded them (without arrays).
func prepareItem(item []byte, members []docread.Member, apiVersion, kind string, opts apiserver.ValidationOptions, share *sharedParts) itemWork {
	if kind != "" {
		item = withTypeMeta(item, apiVersion, kind)
	}
	w := itemWork{data: item}
	if members != nil && kind == "" && !hasMember(members, "items") {
		w.h = docread.HeaderFromMembers(item, members)
	} else {
		w.h, w.err = docread.ReadHeader(item)
	}
	if w.err != nil || w.h.IsList() {
		return w
	}
	ki := supportedKinds[w.h.Kind]
	if ki == nil || w.h.APIVersion != ki.gv.String() {
		return w
	}
	obj, warnings, errs, found := decodeObjectSharing(ki, item, w.h.TypeMetaExact, share)
	w.dec = &decoded{obj: obj, warnings: warnings, errs: errs, found: found}
	if obj != nil {
		w.dec.checked = checkAhead(ki, obj, opts, share, found)
		if w.dec.checked != nil {
			// Checked: the parts found are set in the object and shared.
			found.release()
			w.dec.found = nil
		}
	}
	return w
}

// addItem adds a prepared List item at depth.
func (l *Loader) addItem(file string, line int, w *itemWork, depth int) {
	switch {
	case w.err != nil:
		l.report.Errorf(file, line, "", "", "%v", w.err)
	case w.h.IsList():
		l.addParsed(file, line, w.data, w.h, nil, depth)
	default:
		l.addDecoded(file, line, w.data, w.h, w.dec)
	}
}

// addItems adds the items of a List (at depth), in order; lines, when not
// nil, are their lines, else they are reported at the List's line.
// apiVersion and kind, when kind is not empty, are those of a typed List's
// items. Reading and decoding the items, which needs nothing of the
// loader, is done ahead by GOMAXPROCS goroutines; everything else happens
// here, item after item, so that objects and problems come out exactly as
// if each item had been read and decoded in turn.
func (l *Loader) addItems(file string, line int, lines []int, items []json.RawMessage, members [][]docread.Member, apiVersion, kind string, depth int) {
	lineOf := func(i int) int {
		if lines != nil {
			return lines[i]
		}
		return line
	}
	membersOf := func(i int) []docread.Member {
		if len(members) == len(items) {
			return members[i]
		}
		return nil
	}
	// Only the items prepared and not yet added are held: an item's work
	// (its header, the decoded object) and its members' scan go once it
	// is added, not with the whole List (600 bytes an item).
	l.expect(len(items))
	work := make([]*itemWork, len(items))
	inOrder(len(items), func(i int) {
		w := prepareItem(items[i], membersOf(i), apiVersion, kind, l.validation, l.share)
		work[i] = &w
		if len(members) == len(items) {
			members[i] = nil
		}
	}, func(i int) {
		restore := l.enterItem("items", i, !lineTellsItem(lines, i))
		l.addItem(file, lineOf(i), work[i], depth)
		restore()
		work[i] = nil // the loader keeps what it needs
		l.file.releaseThrough(items[i])
	}, func(done int) { l.itemsAdded(depth, done, len(items)) })
}

// lineTellsItem reports whether the line of item i of a List (lines,
// nil when they are not known) is its own: no other item starts there.
func lineTellsItem(lines []int, i int) bool {
	if lines == nil {
		return false
	}
	return (i == 0 || lines[i-1] != lines[i]) && (i+1 == len(lines) || lines[i+1] != lines[i])
}

// enterItem makes the problems about element i of the array under key
// (within the current item, for nested Lists) name it, when named is
// set: in a List on one line, the line does not tell which item a
// problem is about.
func (l *Loader) enterItem(key string, i int, named bool) (restore func()) {
	if !named {
		return func() {}
	}
	prev := l.report.Item()
	item := key + "[" + strconv.Itoa(i) + "]"
	if prev != "" {
		item = prev + "." + item
	}
	l.report.SetItem(item)
	return func() { l.report.SetItem(prev) }
}

// aheadChunks is how many chunks of items inOrder prepares ahead of the
// one being added, per goroutine: the window of items decoded and not
// yet added (nor their part of the file given back) stays this small
// however long the List is.
const aheadChunks = 16

// inOrder calls prepare(i) and then add(i) for every i below n, add in
// the order of i on the calling goroutine. From parallelMinItems on,
// prepare runs ahead on GOMAXPROCS goroutines, in chunks of itemChunk, at
// most aheadChunks a goroutine ahead of add; prepare(i) must touch
// nothing but item i. added, when not nil, hears how many have been
// added, after each item or chunk.
func inOrder(n int, prepare, add func(i int), added func(done int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || n < parallelMinItems {
		for i := range n {
			prepare(i)
			add(i)
			if added != nil {
				added(i + 1)
			}
		}
		return
	}
	chunks := (n + itemChunk - 1) / itemChunk
	done := make([]chan struct{}, chunks)
	for c := range done {
		done[c] = make(chan struct{})
	}
	// A token for every chunk that may be prepared and not yet added.
	window := make(chan struct{}, aheadChunks*workers)
	// faults[c] is the fault reading a mapped file met preparing chunk c,
	// raised again on the calling goroutine (see guardMappedFile).
	faults := make([]any, chunks)
	stop := make(chan struct{})
	var running sync.WaitGroup
	// The workers are gone when this returns, or panics with a fault: the
	// caller then unmaps the file they read.
	defer func() {
		close(stop)
		running.Wait()
	}()
	var next atomic.Int64
	for range workers {
		running.Add(1)
		go func() {
			defer running.Done()
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			for {
				select {
				case window <- struct{}{}:
				case <-stop:
					return
				}
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				faults[c] = prepareChunk(c*itemChunk, min(n, (c+1)*itemChunk), prepare)
				close(done[c])
			}
		}()
	}
	for c := range chunks {
		<-done[c]
		if faults[c] != nil {
			panic(faults[c])
		}
		for i := c * itemChunk; i < min(n, (c+1)*itemChunk); i++ {
			add(i)
		}
		<-window
		if added != nil {
			added(min(n, (c+1)*itemChunk))
		}
	}
}

// prepareChunk prepares items from to to, and returns the fault reading
// a mapped file that stopped it, if any (any other panic goes on).
func prepareChunk(from, to int, prepare func(i int)) (fault any) {
	defer func() {
		if r := recover(); r != nil {
			if !isMemoryFault(r) {
				panic(r)
			}
			fault = r
		}
	}()
	for i := from; i < to; i++ {
		prepare(i)
	}
	return nil
}

// itemsAdded reports done of n items of a List at depth added: those of a
// document's own List (depth 1) measure how far the document is.
func (l *Loader) itemsAdded(depth, done, n int) {
	if depth == 1 {
		l.meter.within(done, n)
	}
}
