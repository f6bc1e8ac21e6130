package snapshot

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/schedtui/schedtui/internal/docread"
)

// A big snapshot file is mapped (or, where it cannot be, read into memory
// of its own), outside the Go heap, and the part of it whose objects have
// been added goes back to the kernel while the rest is decoded: at a
// million pods the file (0.9 GB of protobuf, 3.35 GiB of JSON) would
// otherwise stay whole until the last object is decoded, when the objects
// themselves are largest. Decoding copies what it keeps (strings,
// quantities, raw bytes), so nothing points into the buffer once an item
// is added. A mapped file cut short by another program while it is loaded
// would end the process (SIGBUS), as any program reading a file it mapped:
// the goroutines reading it turn such a fault into a panic instead
// (debug.SetPanicOnFault), and the load into an error naming the file
// (guardMappedFile). One replaced (renamed over, as editors and `schedtui
// snapshot -o` do) is read as it was.

// fileBufferMinSize is the size from which a file is read into a
// fileBuffer (a variable for the tests, which read every file so). From a
// mebibyte: mapping SchedulingBasic's 8.3 MB protobuf file at 5000 nodes
// takes under a millisecond where reading it into the heap took 2 to 6 ms
// (fresh pages, a copy), on the one goroutine, before any item is decoded.
var fileBufferMinSize int64 = 1 << 20

// fileBufferReleaseStep is how far the added items must have moved past
// what was given back before the next part is: one system call per step
// (a variable for the tests, which give back every page).
var fileBufferReleaseStep = 16 << 20

// fileBuffer is a file read into memory mapped for it alone
// (mapFileBuffer), or the file itself mapped (mapFile).
type fileBuffer struct {
	data []byte
	// released is how much of data, from its start, was given back: read
	// again, it holds zeros, or the file's bytes when fileBacked.
	released   int
	fileBacked bool
}

// readFileBuffer reads f, size bytes, into a new fileBuffer: the file
// mapped itself, else the rest of it read into memory mapped for it; nil
// when neither can be mapped (then the caller reads into the heap) or the
// file does not end at size. head is the start of the file, read ahead
// (sniffSize at most).
func readFileBuffer(f *os.File, head []byte, size int64) (*fileBuffer, error) {
	if size < int64(len(head)) {
		return nil, nil
	}
	if b := mapFile(f, int(size)); b != nil {
		if fi, err := f.Stat(); err == nil && fi.Size() == size && bytes.Equal(b.data[:len(head)], head) {
			return b, nil
		}
		// It changed meanwhile.
		b.free()
	}
	b := mapFileBuffer(int(size))
	if b == nil {
		return nil, nil
	}
	n := copy(b.data, head)
	if _, err := io.ReadFull(f, b.data[n:]); err != nil {
		b.free()
		if err == io.ErrUnexpectedEOF {
			// The file shrank meanwhile: read what there is.
			return nil, nil
		}
		return nil, err
	}
	var more [1]byte
	if k, _ := f.Read(more[:]); k > 0 {
		// It grew meanwhile: the caller reads it whole.
		b.free()
		return nil, nil
	}
	return b, nil
}

// dropResident gives back the pages of a file mapped itself that were not
// given back yet: once a JSON List is scanned and its items' lines
// counted, the kernel reads them in again as its items are decoded
// (releaseThrough then gives them back behind the items added), so that
// the scanned file and the objects decoded from it are not resident
// together. A buffer read into memory keeps them.
func (b *fileBuffer) dropResident() {
	if b == nil || !b.fileBacked || len(b.data) <= b.released {
		return
	}
	b.release(b.released, len(b.data))
}

// releaseThrough gives back the pages of b's data that end before the end
// of p, once that is fileBufferReleaseStep past what was given back: the
// items up to p have been added. A p outside the data (an item copied to
// add its apiVersion and kind) changes nothing.
func (b *fileBuffer) releaseThrough(p []byte) {
	if b == nil || len(p) == 0 || len(b.data) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b.data)))
	end := uintptr(unsafe.Pointer(unsafe.SliceData(p))) + uintptr(len(p))
	if end <= start || end > start+uintptr(len(b.data)) {
		return
	}
	upTo := int(end-start) &^ (os.Getpagesize() - 1)
	if upTo-b.released < fileBufferReleaseStep {
		return
	}
	b.release(b.released, upTo)
	b.released = upTo
}

// guardMappedFile makes a fault reading the mapped file path (the file cut
// short while it is loaded) the load's error instead of the end of the
// process. Call it on the goroutine that loads, deferring what it returns;
// the loader's workers guard themselves (inOrder).
func guardMappedFile(path string, err *error) (done func()) {
	old := debug.SetPanicOnFault(true)
	return func() {
		defer debug.SetPanicOnFault(old)
		r := recover()
		if r == nil {
			return
		}
		if !isMemoryFault(r) {
			panic(r)
		}
		*err = &docread.ParseError{File: path, Msg: "cannot read file: it was cut short while it was loaded; load it again once whatever writes it is done"}
	}
}

// isMemoryFault tells a fault reading memory (debug.SetPanicOnFault's
// panic, which says the faulting address) from other panics.
func isMemoryFault(r any) bool {
	e, ok := r.(runtime.Error)
	if !ok {
		return false
	}
	_, ok = e.(interface{ Addr() uintptr })
	return ok
}
