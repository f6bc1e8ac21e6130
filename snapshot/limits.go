package snapshot

// What reading a snapshot takes in: regular files and pipes (a device given
// by mistake, /dev/zero, never ends), at most MaxSnapshotSize bytes of
// them, and gzip data that expands at most that far and at most
// maxGzipRatio times its size (a gzip bomb), so that a wrong input is
// refused with a clear error instead of filling the memory.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/schedtui/schedtui/internal/docread"
)

// DefaultMaxSnapshotSize is room for the 300,000-pod clusters schedtui
// supports: scalegen's 15,000 nodes and 300,000 pods are 2.4 GiB of JSON.
const DefaultMaxSnapshotSize int64 = 4 << 30

// MaxSnapshotSize bounds the bytes read of one snapshot, all its files
// together, counting what gzipped files expand to (--max-snapshot-size).
var MaxSnapshotSize = DefaultMaxSnapshotSize

// maxGzipRatio bounds how many times its size gzip data may expand to:
// a gzip bomb expands about a thousand times, Kubernetes objects about
// ten to fifty times (scalegen's, all alike, 46).
const maxGzipRatio = 256

// readBudget is what is left of MaxSnapshotSize for the files still to
// read.
type readBudget struct{ left int64 }

func newReadBudget() *readBudget { return &readBudget{left: MaxSnapshotSize} }

// sizeNote says how to read more than the limit, for messages.
func sizeNote() string {
	return fmt.Sprintf("over the %s limit of what a snapshot may hold (--max-snapshot-size)", formatBytes(MaxSnapshotSize))
}

// formatBytes is n in the largest binary unit that keeps it whole, or
// in bytes.
func formatBytes(n int64) string {
	for _, u := range []struct {
		unit  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.unit)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// unreadable says what a file that is not read as a snapshot is, or ""
// for a regular file, a directory or a pipe (--snapshot /dev/stdin, or a
// shell's <(...): it ends, or MaxSnapshotSize stops it).
func unreadable(mode fs.FileMode) string {
	switch {
	case mode.IsRegular(), mode.IsDir(), mode&fs.ModeNamedPipe != 0:
		return ""
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// unreadableError refuses a path that is not a regular file, a directory
// or a pipe.
func unreadableError(path, what string) error {
	return &docread.ParseError{File: path, Msg: "cannot read " + what + ": a snapshot is a regular file, a pipe or a directory"}
}

// read reads a snapshot file within the budget: a regular file no larger
// than what is left, read no further than that (it may grow meanwhile).
func (b *readBudget) read(path string) ([]byte, error) {
	data, _, err := b.readBuffered(path, false)
	return data, err
}

// readBuffered is read; with buffered, a regular file of at least
// fileBufferMinSize is read into a fileBuffer (then returned too: the
// caller frees it once nothing uses the data).
func (b *readBudget) readBuffered(path string, buffered bool) ([]byte, *fileBuffer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
	}
	if what := unreadable(fi.Mode()); what != "" || fi.IsDir() {
		if fi.IsDir() {
			what = "a directory here"
		}
		return nil, nil, unreadableError(path, what)
	}
	if fi.Size() > b.left {
		return nil, nil, b.tooLarge(path, fi.Size())
	}
	buffered = buffered && fi.Mode().IsRegular() && fi.Size() >= fileBufferMinSize
	// Room for the whole file at once, as os.ReadFile makes (growing by
	// doubling would take up to twice the size of a big snapshot), unless
	// it goes to a fileBuffer.
	var buf bytes.Buffer
	if buffered {
		buf.Grow(sniffSize)
	} else {
		buf.Grow(int(fi.Size()) + bytes.MinRead)
	}
	in := io.LimitReader(f, b.left+1)
	if _, err := io.CopyN(&buf, in, sniffSize); err != nil && err != io.EOF {
		return nil, nil, &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
	}
	if what := binaryData(buf.Bytes()); what != "" {
		return nil, nil, &docread.ParseError{File: path, Msg: "not a snapshot: " + what + "; a snapshot is YAML or JSON text, gzip or protobuf"}
	}
	if buffered {
		fb, err := readFileBuffer(f, buf.Bytes(), fi.Size())
		if err != nil {
			return nil, nil, &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
		}
		if fb != nil {
			b.left -= int64(len(fb.data))
			return fb.data, fb, nil
		}
		if _, err := f.Seek(int64(buf.Len()), io.SeekStart); err != nil {
			return nil, nil, &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
		}
	}
	if _, err := buf.ReadFrom(in); err != nil {
		return nil, nil, &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
	}
	data := buf.Bytes()
	if int64(len(data)) > b.left {
		// A pipe, or a file that grew: its size is not known.
		return nil, nil, b.tooLarge(path, -1)
	}
	b.left -= int64(len(data))
	return data, nil, nil
}

// sniffSize is how much of a file binaryData judges before the rest is
// read: a pipe from /dev/zero or /dev/urandom is refused after 64 KiB
// instead of after MaxSnapshotSize.
const sniffSize = 64 << 10

// binaryData says what the start of a file is when it cannot be a
// snapshot, or "": data with a NUL byte, which neither YAML nor JSON text
// holds (random bytes have one every 256 on average), unless it starts
// with gzip's or protobuf's magic bytes or a UTF-16 byte order mark (a
// Windows shell's redirect, which the documents step reports on its own).
// Text that is merely not UTF-8 is left to the decoders, as before.
func binaryData(head []byte) string {
	switch {
	case len(head) == 0,
		bytes.HasPrefix(head, []byte{0x1f, 0x8b}),
		bytes.HasPrefix(head, protobufMagic),
		bytes.HasPrefix(head, []byte{0xff, 0xfe}), bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return ""
	case bytes.IndexByte(head, 0) >= 0:
		return "binary data (NUL bytes)"
	}
	return ""
}

// tooLarge refuses a file of size bytes (-1: more than what is left).
func (b *readBudget) tooLarge(path string, size int64) error {
	msg := fmt.Sprintf("the file is %s", formatBytes(size))
	if size < 0 {
		msg = fmt.Sprintf("the file holds more than %s", formatBytes(b.left))
	}
	if b.left < MaxSnapshotSize {
		msg += fmt.Sprintf(" and the snapshot's files read before it %s", formatBytes(MaxSnapshotSize-b.left))
	}
	return &docread.ParseError{File: path, Msg: msg + ", " + sizeNote()}
}

// gunzip decompresses a file's data within the budget (which the
// compressed bytes were already taken from).
func (b *readBudget) gunzip(name string, data []byte, lenient bool) ([]byte, error) {
	lim := docread.ExpansionLimit{MaxBytes: b.left + int64(len(data)), MaxRatio: maxGzipRatio}
	var plain []byte
	var err error
	if lenient {
		plain, err = docread.GunzipLenient(data, lim)
	} else {
		plain, err = docread.GunzipLimited(data, lim)
	}
	if ee := (*docread.ExpansionError)(nil); errors.As(err, &ee) {
		msg := ee.Error()
		if !ee.Ratio {
			msg += ", " + sizeNote()
		}
		return nil, &docread.ParseError{File: name, Msg: msg, Err: err}
	}
	b.left -= int64(len(plain)) - int64(len(data))
	return plain, err
}
