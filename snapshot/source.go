package snapshot

// This file turns the bytes of one file into Documents: it knows about
// gzip, YAML streams and JSON streams, and nothing about Kubernetes kinds.
// Other layouts (a directory, a tar archive, a live cluster dump) only have
// to produce Documents and hand them to a Loader.

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

// Document is one serialized object (possibly a List) converted to JSON,
// with the position it came from.
type Document struct {
	// File is the name problems are reported under.
	File string
	// Line is the 1-based line where the document's content starts.
	Line int
	// JSON is the document as JSON.
	JSON []byte
	// ItemLines, when non-nil, returns the starting line of every element
	// of the document's top-level "items" array (for List kinds), or nil
	// when they cannot be located. It is only called for Lists.
	ItemLines func() []int
	// KeyItemLines is ItemLines for the array under any top-level key
	// (e.g. "pods" in a kube-scheduler-simulator export); nil, or a nil
	// result, when the lines cannot be located.
	KeyItemLines func(key string) []int
	// Err, when set, says the document is well-formed but could not be
	// converted to JSON; the loader reports it and skips the document.
	Err error
	// Warnings found while reading the document (e.g. duplicate YAML keys).
	Warnings []DocumentWarning

	// For a document of a JSON stream read by the fast scanner: members
	// are the document's top-level members (spans relative to JSON), and
	// JSON is src[off:off+len(JSON)]; the loader counts the lines of List
	// items from there instead of scanning the document again.
	members []jsonMember
	src     []byte
	off     int
}

// DocumentWarning is a finding of the reader about a document.
type DocumentWarning struct {
	Line    int
	Message string
}

var gzipMagic = []byte{0x1f, 0x8b}

// ReadDocuments splits the content of one file into documents. data may be
// gzip-compressed (detected by its magic bytes) and holds either a YAML
// stream (documents separated by "---" lines) or JSON: one object, several
// concatenated objects, or an array of objects. The returned error is a
// *ParseError naming the file and, where known, the line.
func ReadDocuments(name string, data []byte) ([]Document, error) {
	if bytes.HasPrefix(data, gzipMagic) {
		var err error
		data, err = gunzip(data)
		if err != nil {
			return nil, &ParseError{File: name, Msg: err.Error(), Err: err}
		}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 BOM
	if looksLikeJSON(data) {
		return readJSONStream(name, data)
	}
	return readYAMLStream(name, data)
}

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, describeGzipError(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, describeGzipError(err)
	}
	if err := zr.Close(); err != nil {
		return nil, describeGzipError(err)
	}
	return out, nil
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

// looksLikeJSON: the data starts with an object whose first key is quoted
// (or is empty), or with an array of such. A YAML flow mapping such as
// "{kind: Pod}" is left to the YAML parser.
func looksLikeJSON(data []byte) bool {
	i := skipSpace(data, 0, false)
	for depth := 0; i < len(data) && depth < 2; depth++ {
		switch data[i] {
		case '{':
			j := skipSpace(data, i+1, false)
			return j < len(data) && (data[j] == '"' || data[j] == '}')
		case '[':
			j := skipSpace(data, i+1, false)
			if j < len(data) && data[j] == ']' {
				return true
			}
			i = j
		default:
			return false
		}
	}
	return false
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets of line starts

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (li lineIndex) line(off int) int {
	// number of line starts <= off
	return sort.Search(len(li), func(i int) bool { return li[i] > off })
}

func skipSpace(data []byte, off int, alsoComma bool) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
		case ',':
			if !alsoComma {
				return off
			}
			off++
		default:
			return off
		}
	}
	return off
}

// readJSONStream reads concatenated JSON values. A top-level array is
// taken as a sequence of objects.
func readJSONStream(name string, data []byte) ([]Document, error) {
	if docs, ok := readJSONStreamFast(name, data); ok {
		return docs, nil
	}
	return readJSONStreamSlow(name, data)
}

// readJSONStreamFast is readJSONStream for the common case: objects (and
// arrays of values) separated by space, valid and not nested too deep. It
// reports false for anything else, which readJSONStreamSlow then reads
// (or reports, with encoding/json's messages).
func readJSONStreamFast(name string, data []byte) ([]Document, bool) {
	lines := &lineCounter{src: data, line: 1}
	li := &lazyLineIndex{data: data}
	var docs []Document
	for i := skipJSONSpace(data, 0); i < len(data); {
		var end int
		switch data[i] {
		case '{':
			members := []jsonMember{}
			end = scanObject(data, i, 1, &members, true)
			if end < 0 {
				return nil, false
			}
			relativizeMembers(members, i)
			docs = append(docs, fastJSONDocument(name, data, jsonSpan{i, end}, members, lines.lineAt(i), li))
		case '[':
			var elems []jsonSpan
			end = scanArray(data, i, 1, &elems, nil)
			if end < 0 {
				return nil, false
			}
			for _, e := range elems {
				var members []jsonMember
				if data[e.start] == '{' {
					members, _ = scanMembers(data[e.start:e.end], true)
				}
				docs = append(docs, fastJSONDocument(name, data, e, members, lines.lineAt(e.start), li))
			}
		default:
			return nil, false
		}
		i = skipJSONSpace(data, end)
	}
	return docs, true
}

// shiftMembers moves the spans of members (without array elements) by
// delta.
func shiftMembers(members []jsonMember, delta int) {
	for i := range members {
		members[i].value.start += delta
		members[i].value.end += delta
	}
}

// fastJSONDocument is the document data[at.start:at.end]; members, if
// not nil, are its members with spans relative to it.
func fastJSONDocument(name string, data []byte, at jsonSpan, members []jsonMember, line int, li *lazyLineIndex) Document {
	raw := data[at.start:at.end:at.end]
	off := at.start
	keyLines := func(key string) []int {
		var m *jsonMember
		for i := range members {
			if members[i].key == key {
				m = &members[i] // the first one, as jsonKeyItemOffsets
				break
			}
		}
		if m == nil || m.elems == nil {
			return nil
		}
		idx := li.get()
		lines := make([]int, len(m.elems))
		for i, e := range m.elems {
			lines[i] = idx.line(off + e.start)
		}
		return lines
	}
	return Document{
		File:         name,
		Line:         line,
		JSON:         raw,
		ItemLines:    func() []int { return keyLines("items") },
		KeyItemLines: keyLines,
		members:      members,
		src:          data,
		off:          off,
	}
}

// lineCounter gives the lines of increasing offsets of src by counting
// the newlines since the previous one.
type lineCounter struct {
	src       []byte
	off, line int // line is the line of src[off]
}

func (c *lineCounter) lineAt(off int) int {
	if off < c.off {
		c.off, c.line = 0, 1
	}
	if off > len(c.src) {
		off = len(c.src)
	}
	c.line += bytes.Count(c.src[c.off:off], []byte{'\n'})
	c.off = off
	return c.line
}

// lazyLineIndex builds the lineIndex of data the first time it is needed.
type lazyLineIndex struct {
	once sync.Once
	data []byte
	idx  lineIndex
}

func (l *lazyLineIndex) get() lineIndex {
	l.once.Do(func() { l.idx = newLineIndex(l.data) })
	return l.idx
}

// readJSONStreamSlow is readJSONStream with encoding/json.
func readJSONStreamSlow(name string, data []byte) ([]Document, error) {
	li := newLineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []Document
	for {
		start := skipSpace(data, int(dec.InputOffset()), false)
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, jsonParseError(name, data, li, start, err)
		}
		if len(raw) > 0 && raw[0] == '[' {
			items, offs, err := splitJSONArray(raw)
			if err != nil {
				return nil, jsonParseError(name, data, li, start, err)
			}
			for i, it := range items {
				docs = append(docs, jsonDocument(name, it, start+offs[i], li))
			}
			continue
		}
		docs = append(docs, jsonDocument(name, raw, start, li))
	}
}

func jsonDocument(name string, raw []byte, off int, li lineIndex) Document {
	return Document{
		File:      name,
		Line:      li.line(off),
		JSON:      raw,
		ItemLines: func() []int { return jsonKeyItemLines(raw, off, li, "items") },
		KeyItemLines: func(key string) []int {
			return jsonKeyItemLines(raw, off, li, key)
		},
	}
}

func jsonKeyItemLines(raw []byte, off int, li lineIndex, key string) []int {
	offs := jsonKeyItemOffsets(raw, key)
	if offs == nil {
		return nil
	}
	lines := make([]int, len(offs))
	for i, o := range offs {
		lines[i] = li.line(off + o)
	}
	return lines
}

func jsonParseError(name string, data []byte, li lineIndex, start int, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		off := int(syn.Offset) - 1
		if off < 0 {
			off = 0
		}
		if off > len(data) {
			off = len(data)
		}
		return &ParseError{File: name, Line: li.line(off), Msg: "JSON syntax error: " + strings.TrimPrefix(syn.Error(), "json: "), Err: err}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &ParseError{File: name, Line: li.line(start), Msg: "JSON syntax error: unexpected end of input (truncated file?) in the value starting here", Err: err}
	}
	return &ParseError{File: name, Line: li.line(start), Msg: "JSON syntax error: " + strings.TrimPrefix(err.Error(), "json: "), Err: err}
}

// splitJSONArray returns the elements of a JSON array and their offsets
// within it.
func splitJSONArray(raw []byte) ([]json.RawMessage, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // '['
		return nil, nil, err
	}
	var items []json.RawMessage
	var offs []int
	for dec.More() {
		off := skipSpace(raw, int(dec.InputOffset()), true)
		var it json.RawMessage
		if err := dec.Decode(&it); err != nil {
			return nil, nil, err
		}
		items = append(items, it)
		offs = append(offs, off)
	}
	return items, offs, nil
}

// jsonKeyItemOffsets returns the offsets of the elements of the array
// under key of a JSON object, or nil.
func jsonKeyItemOffsets(raw []byte, key string) []int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := tok.(string)
		if k != key {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil
			}
			continue
		}
		start := int(dec.InputOffset())
		for start < len(raw) && (raw[start] == ':' || raw[start] == ' ' || raw[start] == '\t' || raw[start] == '\r' || raw[start] == '\n') {
			start++
		}
		var arr json.RawMessage
		if err := dec.Decode(&arr); err != nil || len(arr) == 0 || arr[0] != '[' {
			return nil
		}
		_, offs, err := splitJSONArray(arr)
		if err != nil {
			return nil
		}
		for i := range offs {
			offs[i] += start
		}
		return offs
	}
	return nil
}

// yamlChunk is the text of one YAML document of a stream.
type yamlChunk struct {
	text      []byte
	firstLine int // line number of text's first line
}

// splitYAML splits a YAML stream on "---" separator lines, the way kubectl
// does: a separator is a line starting with "---" followed only by spaces
// or a comment.
func splitYAML(name string, data []byte) ([]yamlChunk, error) {
	var chunks []yamlChunk
	start, startLine := 0, 1
	line := 1
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		l := bytes.TrimRight(data[off:next], "\r\n")
		if bytes.HasPrefix(l, []byte("---")) {
			rest := strings.TrimSpace(string(l[3:]))
			if rest != "" && rest[0] != '#' {
				return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("YAML syntax error: invalid document separator: %s", rest)}
			}
			chunks = append(chunks, yamlChunk{text: data[start:off], firstLine: startLine})
			start, startLine = next, line+1
		}
		off = next
		line++
	}
	chunks = append(chunks, yamlChunk{text: data[start:], firstLine: startLine})
	return chunks, nil
}

// contentLine returns the line of the first line of c that is neither
// blank nor a comment, or 0 if there is none.
func (c yamlChunk) contentLine() int {
	line := c.firstLine
	for _, l := range bytes.Split(c.text, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("...")) && t[0] != '%' {
			return line
		}
		line++
	}
	return 0
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

func readYAMLStream(name string, data []byte) ([]Document, error) {
	chunks, err := splitYAML(name, data)
	if err != nil {
		return nil, err
	}
	var docs []Document
	for _, c := range chunks {
		first := c.contentLine()
		if first == 0 {
			continue // empty document
		}
		// Strict conversion first: it costs nothing extra when it succeeds
		// and it is the only way to learn about duplicate keys.
		js, err := yaml.YAMLToJSONStrict(c.text)
		var warnings []DocumentWarning
		if err != nil {
			if lenient, lerr := yaml.YAMLToJSON(c.text); lerr == nil {
				warnings = duplicateKeyWarnings(c, first, err.Error())
				js, err = lenient, nil
			}
		}
		if err != nil {
			perr := yamlParseError(name, c, first, err)
			if !perr.syntax {
				docs = append(docs, Document{File: name, Line: first, Err: errors.New(perr.Msg)})
				continue
			}
			return nil, perr.ParseError
		}
		if bytes.Equal(js, []byte("null")) {
			continue
		}
		if len(js) > 0 && js[0] == '[' {
			items, _, err := splitJSONArray(js)
			if err != nil {
				return nil, &ParseError{File: name, Line: first, Msg: "cannot split YAML sequence: " + err.Error(), Err: err}
			}
			lines := yamlSeqItemLines(c, "")
			for i, it := range items {
				l := first
				if len(lines) == len(items) {
					l = lines[i]
				}
				docs = append(docs, Document{File: name, Line: l, JSON: it})
			}
			continue
		}
		c := c
		docs = append(docs, Document{File: name, Line: first, JSON: js, Warnings: warnings,
			ItemLines:    func() []int { return yamlSeqItemLines(c, "items") },
			KeyItemLines: func(key string) []int { return yamlSeqItemLines(c, key) }})
	}
	return docs, nil
}

// yamlParseError converts a YAML error into a ParseError with an absolute
// line number. Errors without a line are located by parsing growing
// prefixes of the document.
type yamlError struct {
	*ParseError
	syntax bool
}

func yamlParseError(name string, c yamlChunk, first int, err error) yamlError {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	if !strings.HasPrefix(msg, "yaml:") {
		// The YAML is well-formed but has no JSON equivalent (e.g. .nan).
		return yamlError{ParseError: &ParseError{File: name, Line: first, Msg: "cannot convert YAML to JSON: " + strings.TrimPrefix(msg, "json: "), Err: err}}
	}
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "yaml:"))
	line := 0
	if m := yamlLineRE.FindStringSubmatchIndex(msg); m != nil {
		n, convErr := strconv.Atoi(msg[m[2]:m[3]])
		if convErr == nil {
			line = c.firstLine + n - 1
		}
		// drop the "line N: " part; the position goes in front.
		msg = strings.TrimSpace(strings.TrimPrefix(msg[:m[0]]+msg[m[1]:], ":"))
		msg = strings.TrimPrefix(msg, ": ")
	} else {
		line = bisectYAMLError(c, msg)
		if line == 0 {
			line = first
		}
	}
	return yamlError{ParseError: &ParseError{File: name, Line: line, Msg: "YAML syntax error: " + msg, Err: err}, syntax: true}
}

// bisectYAMLError finds the shortest line prefix of the chunk that fails to
// parse with the same message; returns its last line, or 0.
func bisectYAMLError(c yamlChunk, msg string) int {
	// Each probe re-parses a prefix; keep this cheap on huge documents.
	if len(c.text) > 4<<20 {
		return 0
	}
	lines := bytes.SplitAfter(c.text, []byte("\n"))
	fails := func(n int) bool {
		_, err := yaml.YAMLToJSON(bytes.Join(lines[:n], nil))
		if err == nil {
			return false
		}
		m := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
		m = strings.TrimSpace(strings.TrimPrefix(m, "yaml:"))
		return m == msg
	}
	n := sort.Search(len(lines)+1, fails)
	if n == 0 || n > len(lines) {
		return 0
	}
	return c.firstLine + n - 1
}

// yamlSeqItemLines returns the line of every entry of a block sequence:
// the value of the top-level key (e.g. "items"), or the document itself
// when key is empty. It returns nil when the sequence cannot be located
// (flow style, unusual layout).
func yamlSeqItemLines(c yamlChunk, key string) []int {
	lines := bytes.Split(c.text, []byte("\n"))
	i := 0
	if key != "" {
		found := false
		prefix := []byte(key + ":")
		for ; i < len(lines); i++ {
			l := bytes.TrimRight(lines[i], "\r")
			if !bytes.HasPrefix(l, prefix) {
				continue
			}
			rest := bytes.TrimSpace(l[len(prefix):])
			if len(rest) > 0 && rest[0] != '#' {
				return nil // flow style or scalar
			}
			found = true
			i++
			break
		}
		if !found {
			return nil
		}
	}
	seqIndent := -1
	var out []int
	for ; i < len(lines); i++ {
		l := bytes.TrimRight(lines[i], "\r")
		ind := 0
		for ind < len(l) && l[ind] == ' ' {
			ind++
		}
		content := l[ind:]
		if len(bytes.TrimSpace(content)) == 0 || content[0] == '#' {
			continue
		}
		entry := isSeqEntry(content)
		if seqIndent < 0 {
			if !entry {
				return nil
			}
			seqIndent = ind
		}
		if ind < seqIndent {
			break
		}
		if ind == seqIndent {
			if !entry {
				break
			}
			out = append(out, c.firstLine+i)
		}
	}
	return out
}

func isSeqEntry(content []byte) bool {
	return len(content) > 0 && content[0] == '-' &&
		(len(content) == 1 || content[1] == ' ' || content[1] == '\t')
}

var duplicateKeyRE = regexp.MustCompile(`line (\d+): key (".*") already set in map`)

// duplicateKeyWarnings turns the strict YAML decoder's complaints about
// repeated keys into warnings; the lenient conversion keeps the last value.
func duplicateKeyWarnings(c yamlChunk, first int, msg string) []DocumentWarning {
	var out []DocumentWarning
	for _, m := range duplicateKeyRE.FindAllStringSubmatch(msg, -1) {
		line := first
		if n, err := strconv.Atoi(m[1]); err == nil {
			line = c.firstLine + n - 1
		}
		out = append(out, DocumentWarning{Line: line, Message: "duplicate key " + m[2] + " (the last value is used)"})
	}
	if len(out) == 0 {
		msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
		out = append(out, DocumentWarning{Line: first, Message: strings.TrimSpace(strings.ReplaceAll(msg, "\n", " "))})
	}
	return out
}

// --- a fast JSON scanner -------------------------------------------------------
//
// Loading a large snapshot is mostly scanning JSON: finding the documents of
// a file, the items of a List, and the apiVersion, kind and name of every
// item. encoding/json's scanner is a byte-at-a-time state machine, and
// decoding into map[string]json.RawMessage copies every value; the scanner
// below does the same validation (it accepts exactly what encoding/json
// accepts, up to a nesting depth) in one tight pass and hands out
// sub-slices of its input. Anything it does not accept is left to the
// encoding/json-based code, so error messages are unchanged.

// maxScanDepth bounds the nesting the scanner follows; deeper documents
// (encoding/json allows 10000) take the encoding/json path.
const maxScanDepth = 512

// jsonStrPlain marks the bytes that stand for themselves inside a JSON
// string: everything but '"', '\\' and control characters.
var jsonStrPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

var jsonHex = func() (t [256]bool) {
	for _, c := range []byte("0123456789abcdefABCDEF") {
		t[c] = true
	}
	return t
}()

func isJSONSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func skipJSONSpace(data []byte, i int) int {
	for i < len(data) && isJSONSpace(data[i]) {
		i++
	}
	return i
}

// jsonSpan is a value of a JSON text: data[start:end].
type jsonSpan struct{ start, end int }

// jsonMember is one member of a JSON object: the key (unquoted) and the
// span of its value. When the value is an array and the scan was asked to
// record them, elems are the spans of its elements and elemMembers the
// members of those that are objects (nil for the others), with spans
// relative to the element.
type jsonMember struct {
	key         string
	value       jsonSpan
	elems       []jsonSpan
	elemMembers [][]jsonMember
}

// scanString scans the string starting at data[i] ('"'). It returns the
// index after the closing quote and whether the string has escapes, or -1.
func scanString(data []byte, i int) (int, bool) {
	i++
	escaped := false
	for {
		for i < len(data) && jsonStrPlain[data[i]] {
			i++
		}
		if i >= len(data) {
			return -1, false
		}
		switch data[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			if i+1 >= len(data) {
				return -1, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !jsonHex[data[i+2]] || !jsonHex[data[i+3]] || !jsonHex[data[i+4]] || !jsonHex[data[i+5]] {
					return -1, false
				}
				i += 6
			default:
				return -1, false
			}
		default: // a control character
			return -1, false
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanNumber scans the number starting at data[i], or returns -1.
func scanNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return -1
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		for i++; i < len(data) && isDigit(data[i]); i++ {
		}
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		for i++; i < len(data) && isDigit(data[i]); i++ {
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		for i++; i < len(data) && isDigit(data[i]); i++ {
		}
	}
	return i
}

// scanValue scans the JSON value starting at data[i] (not space) and
// returns the index after it, or -1 if it is not valid JSON.
func scanValue(data []byte, i, depth int) int {
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; c {
	case '{':
		return scanObject(data, i, depth+1, nil, false)
	case '[':
		return scanArray(data, i, depth+1, nil, nil)
	case '"':
		end, _ := scanString(data, i)
		return end
	case 't':
		return scanLiteral(data, i, "true")
	case 'f':
		return scanLiteral(data, i, "false")
	case 'n':
		return scanLiteral(data, i, "null")
	default:
		if c == '-' || isDigit(c) {
			return scanNumber(data, i)
		}
		return -1
	}
}

func scanLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanArray scans the array starting at data[i] ('['); with elems non-nil
// it appends the spans of the elements, and with members non-nil the
// members of the elements that are objects (nil for the others).
func scanArray(data []byte, i, depth int, elems *[]jsonSpan, members *[][]jsonMember) int {
	if depth > maxScanDepth {
		return -1
	}
	i = skipJSONSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1
	}
	for {
		var end int
		if members != nil && i < len(data) && data[i] == '{' {
			mm := make([]jsonMember, 0, 5) // apiVersion, kind, metadata, spec, status
			end = scanObject(data, i, depth+1, &mm, false)
			*members = append(*members, mm)
		} else {
			end = scanValue(data, i, depth)
			if members != nil {
				*members = append(*members, nil)
			}
		}
		if end < 0 {
			return -1
		}
		if elems != nil {
			*elems = append(*elems, jsonSpan{i, end})
		}
		i = skipJSONSpace(data, end)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = skipJSONSpace(data, i+1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// scanObject scans the object starting at data[i] ('{'); with members
// non-nil it appends its members, and with arrays also the elements of
// the members' array values.
func scanObject(data []byte, i, depth int, members *[]jsonMember, arrays bool) int {
	if depth > maxScanDepth {
		return -1
	}
	i = skipJSONSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return -1
		}
		keyEnd, escaped := scanString(data, i)
		if keyEnd < 0 {
			return -1
		}
		keyStart := i
		i = skipJSONSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return -1
		}
		i = skipJSONSpace(data, i+1)
		var m jsonMember
		var end int
		if members != nil && arrays && i < len(data) && data[i] == '[' {
			m.elems = []jsonSpan{}
			end = scanArray(data, i, depth+1, &m.elems, &m.elemMembers)
		} else {
			end = scanValue(data, i, depth)
		}
		if end < 0 {
			return -1
		}
		if members != nil {
			m.key = jsonKey(data[keyStart:keyEnd], escaped)
			m.value = jsonSpan{i, end}
			*members = append(*members, m)
		}
		i = skipJSONSpace(data, end)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = skipJSONSpace(data, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// jsonKey returns the string a quoted key stands for.
func jsonKey(quoted []byte, escaped bool) string {
	if !escaped && isASCII(quoted) {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// scanMembers validates data as one JSON object (surrounding space
// allowed) and returns its members, with the elements of array values
// (and their members) when arrays is set; ok is false when data is not a
// valid JSON object.
func scanMembers(data []byte, arrays bool) (members []jsonMember, ok bool) {
	i := skipJSONSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	members = []jsonMember{}
	end := scanObject(data, i, 1, &members, arrays)
	if end < 0 || skipJSONSpace(data, end) != len(data) {
		return nil, false
	}
	relativizeMembers(members, 0)
	return members, true
}

// relativizeMembers makes the spans of members (as the scanner records
// them: relative to the scanned data) relative to base, and those of the
// members of array elements relative to their element.
func relativizeMembers(members []jsonMember, base int) {
	for i := range members {
		m := &members[i]
		for j, em := range m.elemMembers {
			shiftMembers(em, -m.elems[j].start)
		}
		m.value.start -= base
		m.value.end -= base
		for j := range m.elems {
			m.elems[j].start -= base
			m.elems[j].end -= base
		}
	}
}

// jsonStringValue returns the string a JSON value holds, as
// json.Unmarshal into a string sets it: "" for anything but a string.
func jsonStringValue(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 && isASCII(body) {
		return string(body)
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
