package docread

// Gzip: telling it, and decompressing it within limits (ExpansionLimit),
// member after member, with errors that say how the data is broken.

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

var gzipMagic = []byte{0x1f, 0x8b}

// IsGzip reports whether data starts with gzip's magic bytes.
func IsGzip(data []byte) bool { return bytes.HasPrefix(data, gzipMagic) }

// Gunzip decompresses data, with an error that says how it is broken.
func Gunzip(data []byte) ([]byte, error) { return GunzipLimited(data, ExpansionLimit{}) }

// GunzipLenient decompresses as much of data as it can: a file cut short
// (e.g. a recording whose recorder was killed) is readable up to its last
// flush. err says why the rest is missing.
func GunzipLenient(data []byte, lim ExpansionLimit) ([]byte, error) {
	return gunzip(data, lim, true)
}

// GunzipLimited is Gunzip within lim: a *ExpansionError when data expands
// beyond it.
func GunzipLimited(data []byte, lim ExpansionLimit) ([]byte, error) {
	out, err := gunzip(data, lim, false)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ExpansionLimit bounds what gzip data may expand to: MaxBytes, and
// MaxRatio times the compressed size (a gzip bomb expands about a thousand
// times; Kubernetes objects, even generated ones, about ten to fifty
// times). A zero field is no bound.
type ExpansionLimit struct {
	MaxBytes, MaxRatio int64
}

// of is the most that n compressed bytes may expand to, or -1.
func (lim ExpansionLimit) of(n int) int64 {
	most := int64(-1)
	if lim.MaxBytes > 0 {
		most = lim.MaxBytes
	}
	if r := lim.MaxRatio * int64(n); lim.MaxRatio > 0 && (most < 0 || r < most) {
		most = r
	}
	return most
}

// ExpansionError says gzip data expands beyond an ExpansionLimit.
type ExpansionError struct {
	Compressed int64
	// Limit is what it may expand to; Ratio says whether the limit is the
	// ratio's (else MaxBytes').
	Limit int64
	Ratio bool
}

func (e *ExpansionError) Error() string {
	if e.Ratio {
		return fmt.Sprintf("the gzip data (%d bytes) expands to more than %d bytes, over %d times its size: refused as a gzip bomb "+
			"(decompress it yourself and read the result if it is genuine)", e.Compressed, e.Limit, e.Limit/max(e.Compressed, 1))
	}
	return fmt.Sprintf("the gzip data (%d bytes) expands to more than %d bytes", e.Compressed, e.Limit)
}

// gunzip decompresses data, member after member (concatenated gzip files
// are one stream), within lim. Bytes after the last member are an error
// unless they are zeros (the padding some tools add). lenient keeps what
// was decompressed before an error.
func gunzip(data []byte, lim ExpansionLimit, lenient bool) ([]byte, error) {
	fail := func(out []byte, err error) ([]byte, error) {
		if lenient {
			return out, err
		}
		return nil, err
	}
	br := bytes.NewReader(data)
	// A bytes.Reader is read byte by byte, not buffered ahead: at the end
	// of a member it is at the member's end.
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, describeGzipError(err)
	}
	most := lim.of(len(data))
	var out bytes.Buffer
	if n := len(data); n >= 18 {
		// The size a single-member stream says it expands to (modulo
		// 4 GiB), within the limit and what deflate can expand to (about
		// 1032 times): room for it at once.
		size := min(int64(binary.LittleEndian.Uint32(data[n-4:])), 1032*int64(n))
		if most >= 0 {
			size = min(size, most)
		}
		out.Grow(int(size) + bytes.MinRead)
	}
	for {
		zr.Multistream(false)
		src := io.Reader(zr)
		if most >= 0 {
			src = io.LimitReader(zr, most-int64(out.Len())+1)
		}
		_, err := out.ReadFrom(src)
		if err != nil {
			return fail(out.Bytes(), describeGzipError(err))
		}
		if most >= 0 && int64(out.Len()) > most {
			return fail(out.Bytes()[:most], &ExpansionError{Compressed: int64(len(data)), Limit: most, Ratio: most != lim.MaxBytes})
		}
		off := len(data) - br.Len()
		rest := data[off:]
		if len(bytes.Trim(rest, "\x00")) == 0 {
			return out.Bytes(), nil
		}
		if !IsGzip(rest) {
			return fail(out.Bytes(), fmt.Errorf("trailing garbage: the gzip data ends at byte %d, and the %d bytes after it are not gzip data", off, len(rest)))
		}
		if err := zr.Reset(br); err != nil {
			return fail(out.Bytes(), describeGzipError(err))
		}
	}
}

func describeGzipError(err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("truncated gzip data: %w", err)
	case errors.Is(err, gzip.ErrChecksum):
		return fmt.Errorf("corrupt gzip data (checksum mismatch): %w", err)
	case errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("corrupt gzip data (invalid header): %w", err)
	case errors.As(err, &corrupt):
		return fmt.Errorf("corrupt gzip data: %w", err)
	default:
		return fmt.Errorf("cannot decompress gzip data: %w", err)
	}
}
