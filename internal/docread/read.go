// Package docread reads input files into documents and reports what it
// finds about them: it turns the bytes of one file into Documents (gzip,
// YAML streams, JSON streams, with a fast JSON scanner that hands out the
// top-level members of an object), reads an object's header (apiVersion,
// kind, name, List items), locates the fields a decoder rejects, and
// collects Problems with their file and line in a Report. It knows nothing
// about which Kubernetes kinds exist: other layouts (a directory, a tar
// archive, a live cluster dump) only have to produce Documents and hand
// them to a loader.
package docread

import (
	"bytes"
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
	members []Member
	src     []byte
	off     int
}

// Members returns the document's top-level members as the fast scanner
// recorded them (spans relative to JSON), or nil when it did not read the
// document.
func (d *Document) Members() []Member { return d.members }

// LinesAt returns the lines of the given offsets of JSON, counted from the
// document's own position in its file; ok is false when the document was
// not read by the fast scanner (use ItemLines then).
func (d *Document) LinesAt(offs []int) (lines []int, ok bool) {
	if d.src == nil {
		return nil, false
	}
	c := lineCounter{src: d.src, off: d.off, line: d.Line}
	lines = make([]int, len(offs))
	for i, off := range offs {
		lines[i] = c.lineAt(d.off + off)
	}
	return lines, true
}

// DocumentWarning is a finding of the reader about a document.
type DocumentWarning struct {
	Line    int
	Message string
}

// ReadDocuments splits the content of one file into documents. data may be
// gzip-compressed (detected by its magic bytes) and holds either a YAML
// stream (documents separated by "---" lines) or JSON: one object, several
// concatenated objects, or an array of objects. The returned error is a
// *ParseError naming the file and, where known, the line.
func ReadDocuments(name string, data []byte) ([]Document, error) {
	return ReadDocumentsReporting(name, data, nil)
}

// ReadDocumentsReporting is ReadDocuments calling converted, if not nil,
// as it converts a YAML stream to JSON, the slow part of reading one: with
// the bytes of data (decompressed) converted, of all of them, at the end of
// every document and within a long List. It is not called for JSON.
func ReadDocumentsReporting(name string, data []byte, converted func(done, total int)) ([]Document, error) {
	if IsGzip(data) {
		var err error
		data, err = Gunzip(data)
		if err != nil {
			return nil, &ParseError{File: name, Msg: err.Error(), Err: err}
		}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 BOM
	if !looksLikeJSON(data) {
		return readYAMLStream(name, data, 1, converted)
	}
	// The common case in one pass over the bytes (on a 23 MB file, the
	// second pass was 12 ms of a 90 ms load, before anything else could
	// start): JSON documents, read fast, up to YAML ones that may follow.
	docs, yamlAt, ok := readJSONDocumentsFast(name, data, true)
	if !ok {
		yamlAt = jsonStreamEnd(data)
		if yamlAt == 0 {
			return readJSONStream(name, data)
		}
		var err error
		if docs, err = readJSONStream(name, data[:yamlAt]); err != nil {
			return nil, err
		}
	}
	if yamlAt == len(data) {
		return docs, nil
	}
	// JSON documents, then YAML ones (after a "---" line, say): as
	// kubectl's decoder, read on as YAML where the JSON stops.
	more, err := readYAMLStream(name, data[yamlAt:], 1+bytes.Count(data[:yamlAt], []byte{'\n'}), converted)
	if err != nil {
		return nil, err
	}
	return append(docs, more...), nil
}

// jsonStreamEnd returns where a stream of JSON objects and arrays that
// goes on with something else (YAML) stops being JSON, at the start of a
// line; 0 when it is JSON to the end, or not valid JSON up to there.
func jsonStreamEnd(data []byte) int {
	for i := skipJSONSpace(data, 0); i < len(data); {
		if data[i] != '{' && data[i] != '[' {
			if i > 0 && data[i-1] == '\n' {
				return i
			}
			return 0
		}
		end := scanValue(data, i, 0)
		if end < 0 {
			return 0
		}
		i = skipJSONSpace(data, end)
	}
	return 0
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

// ItemMembersMaxFile is the size of a JSON stream from which the members
// of a List's items are not recorded when it is read (a variable for the
// tests).
var ItemMembersMaxFile = 64 << 20

// readJSONStreamFast is readJSONStream for the common case: objects (and
// arrays of values) separated by space, valid and not nested too deep. It
// reports false for anything else, which readJSONStreamSlow then reads
// (or reports, with encoding/json's messages).
func readJSONStreamFast(name string, data []byte) ([]Document, bool) {
	docs, _, ok := readJSONDocumentsFast(name, data, false)
	return docs, ok
}

// readJSONDocumentsFast is readJSONStreamFast; with untilText, it stops
// where jsonStreamEnd says the JSON stops (at anything but an object or
// an array at the start of a line): yamlAt is there, or len(data) when
// the documents go on to the end.
func readJSONDocumentsFast(name string, data []byte, untilText bool) (docs []Document, yamlAt int, ok bool) {
	// The members of a List's items are recorded with the List's scan
	// only in a small file: in a big one they would all be held (600
	// bytes an item) until the last item is added, and each item is
	// scanned again, on the loader's goroutines, as it is decoded.
	record := arrayElemMembers
	if len(data) >= ItemMembersMaxFile {
		record = arrayElems
	}
	lines := &lineCounter{src: data, line: 1}
	li := &lazyLineIndex{data: data}
	for i := skipJSONSpace(data, 0); i < len(data); {
		var end int
		switch data[i] {
		case '{':
			members := []Member{}
			end = scanObject(data, i, 1, &members, record)
			if end < 0 {
				return nil, 0, false
			}
			relativizeMembers(members, i)
			docs = append(docs, fastJSONDocument(name, data, Span{i, end}, members, lines.lineAt(i), li))
		case '[':
			var elems []Span
			end = scanArray(data, i, 1, &elems, nil)
			if end < 0 {
				return nil, 0, false
			}
			for _, e := range elems {
				var members []Member
				if data[e.Start] == '{' {
					members, _ = ScanMembers(data[e.Start:e.End], true)
				}
				docs = append(docs, fastJSONDocument(name, data, e, members, lines.lineAt(e.Start), li))
			}
		default:
			if untilText && i > 0 && data[i-1] == '\n' {
				return docs, i, true
			}
			return nil, 0, false
		}
		i = skipJSONSpace(data, end)
	}
	return docs, len(data), true
}

// shiftMembers moves the spans of members (without array elements) by
// delta.
func shiftMembers(members []Member, delta int) {
	for i := range members {
		members[i].Value.Start += delta
		members[i].Value.End += delta
	}
}

// fastJSONDocument is the document data[at.start:at.end]; members, if
// not nil, are its members with spans relative to it.
func fastJSONDocument(name string, data []byte, at Span, members []Member, line int, li *lazyLineIndex) Document {
	raw := data[at.Start:at.End:at.End]
	off := at.Start
	keyLines := func(key string) []int {
		var m *Member
		for i := range members {
			if members[i].Key == key {
				m = &members[i] // the first one, as jsonKeyItemOffsets
				break
			}
		}
		if m == nil || m.Elems == nil {
			return nil
		}
		idx := li.get()
		lines := make([]int, len(m.Elems))
		for i, e := range m.Elems {
			lines[i] = idx.line(off + e.Start)
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
	start     int // offset of text in the stream
}

// splitYAML splits a YAML stream on "---" separator lines, the way kubectl
// does: a separator is a line starting with "---" followed only by spaces
// or a comment.
func splitYAML(name string, data []byte, firstLine int) ([]yamlChunk, error) {
	var chunks []yamlChunk
	start, startLine := 0, firstLine
	line := firstLine
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
			chunks = append(chunks, yamlChunk{text: data[start:off], firstLine: startLine, start: start})
			start, startLine = next, line+1
		}
		off = next
		line++
	}
	chunks = append(chunks, yamlChunk{text: data[start:], firstLine: startLine, start: start})
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

// readYAMLStream reads a YAML stream whose first line is line firstLine of
// the file. A document with a syntax error is reported as such (Err), and
// the others are read; when every document has one, the first is the
// error.
func readYAMLStream(name string, data []byte, firstLine int, converted func(done, total int)) ([]Document, error) {
	chunks, err := splitYAML(name, data, firstLine)
	if err != nil {
		return nil, err
	}
	var docs []Document
	var firstSyntaxErr *ParseError
	readOne := false
	for _, c := range chunks {
		first := c.contentLine()
		if first == 0 {
			continue // empty document
		}
		var within func(off int)
		if converted != nil {
			within = func(off int) { converted(c.start+off, len(data)) }
		}
		var js []byte
		var err error
		inParts := false
		if len(c.text) >= listInPartsMinBytes {
			js, inParts = convertListInParts(c.text, within)
		}
		if !inParts {
			// Strict conversion first: it costs nothing extra when it
			// succeeds and it is the only way to learn about duplicate keys.
			js, err = yaml.YAMLToJSONStrict(c.text)
		}
		var warnings []DocumentWarning
		if err != nil {
			if lenient, lerr := yaml.YAMLToJSON(c.text); lerr == nil {
				warnings = duplicateKeyWarnings(c, first, err.Error())
				js, err = lenient, nil
			}
		}
		if within != nil {
			within(len(c.text))
		}
		if err != nil {
			perr := yamlParseError(name, c, first, err)
			if !perr.syntax {
				docs = append(docs, Document{File: name, Line: first, Err: errors.New(perr.Msg)})
				continue
			}
			if firstSyntaxErr == nil {
				firstSyntaxErr = perr.ParseError
			}
			last := c.firstLine + bytes.Count(bytes.TrimRight(c.text, "\n"), []byte{'\n'})
			docs = append(docs, Document{File: name, Line: perr.Line,
				Err: fmt.Errorf("%s; the document of lines %d-%d is skipped", perr.Msg, first, last)})
			continue
		}
		readOne = true
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
	if firstSyntaxErr != nil && !readOne {
		return nil, firstSyntaxErr
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
