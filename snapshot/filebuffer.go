package snapshot

import (
	"io"
	"os"
	"unsafe"
)

// A big snapshot file is read into memory of its own, outside the Go heap,
// and the part of it whose objects have been added goes back to the
// kernel while the rest is decoded: at a million pods the file (0.9 GB of
// protobuf) would otherwise stay whole until the last object is decoded,
// when the objects themselves are largest. Decoding copies what it keeps
// (strings, quantities, raw bytes), so nothing points into the buffer once
// an item is added.

// fileBufferMinSize is the size from which a file is read into a
// fileBuffer (a variable for the tests, which read every file so).
var fileBufferMinSize int64 = 64 << 20

// fileBufferReleaseStep is how far the added items must have moved past
// what was given back before the next part is: one system call per step
// (a variable for the tests, which give back every page).
var fileBufferReleaseStep = 16 << 20

// fileBuffer is a file read into memory mapped for it alone (mapFileBuffer).
type fileBuffer struct {
	data []byte
	// released is how much of data, from its start, was given back: read
	// again, it holds zeros.
	released int
}

// readFileBuffer reads the rest of f, size bytes, into a new fileBuffer;
// nil when the memory cannot be mapped (then the caller reads into the
// heap) or the file does not end at size. head is the start of the file,
// read ahead (sniffSize at most).
func readFileBuffer(f *os.File, head []byte, size int64) (*fileBuffer, error) {
	if size < int64(len(head)) {
		return nil, nil
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
