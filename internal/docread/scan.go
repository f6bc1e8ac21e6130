package docread

import (
	"bytes"
	"encoding/json"
)

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

// Span is a value of a JSON text: data[Start:End].
type Span struct{ Start, End int }

// Member is one member of a JSON object: the key (unquoted) and the
// span of its value (Value). When the value is an array and the scan was asked to
// record them, Elems are the spans of its elements and ElemMembers the
// members of those that are objects (nil for the others), with spans
// relative to the element.
type Member struct {
	Key         string
	Value       Span
	Elems       []Span
	ElemMembers [][]Member
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
		return scanObject(data, i, depth+1, nil, noArrays)
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
func scanArray(data []byte, i, depth int, elems *[]Span, members *[][]Member) int {
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
			mm := []Member{} // an empty object ({}) needs no room
			if j := skipJSONSpace(data, i+1); j < len(data) && data[j] != '}' {
				mm = make([]Member, 0, 5) // apiVersion, kind, metadata, spec, status
			}
			end = scanObject(data, i, depth+1, &mm, noArrays)
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
			*elems = append(*elems, Span{i, end})
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

// arrayRecord is what a scan records of the array values of an object's
// members.
type arrayRecord int

const (
	noArrays         arrayRecord = iota
	arrayElems                   // the spans of their elements (Elems)
	arrayElemMembers             // and the members of those that are objects (ElemMembers)
)

// scanObject scans the object starting at data[i] ('{'); with members
// non-nil it appends its members, and of the members' array values what
// arrays says.
func scanObject(data []byte, i, depth int, members *[]Member, arrays arrayRecord) int {
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
		var m Member
		var end int
		if members != nil && arrays != noArrays && i < len(data) && data[i] == '[' {
			m.Elems = []Span{}
			var elemMembers *[][]Member
			if arrays == arrayElemMembers {
				elemMembers = &m.ElemMembers
			}
			end = scanArray(data, i, depth+1, &m.Elems, elemMembers)
		} else {
			end = scanValue(data, i, depth)
		}
		if end < 0 {
			return -1
		}
		if members != nil {
			m.Key = jsonKey(data[keyStart:keyEnd], escaped)
			m.Value = Span{i, end}
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
	if !escaped && IsASCII(quoted) {
		key := quoted[1 : len(quoted)-1]
		// The keys every object has, not allocated each time.
		for _, k := range commonKeys {
			if string(key) == k {
				return k
			}
		}
		return string(key)
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}

// commonKeys are the top-level keys of an object and those of its
// metadata that the loader reads.
var commonKeys = [...]string{"apiVersion", "kind", "metadata", "spec", "status", "name", "namespace",
	"uid", "creationTimestamp", "labels", "annotations", "generateName", "resourceVersion"}

func IsASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// ScanMembers validates data as one JSON object (surrounding space
// allowed) and returns its members, with the elements of array values
// (and their members) when arrays is set; ok is false when data is not a
// valid JSON object.
func ScanMembers(data []byte, arrays bool) (members []Member, ok bool) {
	i := skipJSONSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	members = []Member{}
	record := noArrays
	if arrays {
		record = arrayElemMembers
	}
	end := scanObject(data, i, 1, &members, record)
	if end < 0 || skipJSONSpace(data, end) != len(data) {
		return nil, false
	}
	relativizeMembers(members, 0)
	return members, true
}

// relativizeMembers makes the spans of members (as the scanner records
// them: relative to the scanned data) relative to base, and those of the
// members of array elements relative to their element.
func relativizeMembers(members []Member, base int) {
	for i := range members {
		m := &members[i]
		for j, em := range m.ElemMembers {
			shiftMembers(em, -m.Elems[j].Start)
		}
		m.Value.Start -= base
		m.Value.End -= base
		for j := range m.Elems {
			m.Elems[j].Start -= base
			m.Elems[j].End -= base
		}
	}
}

// StringValue returns the string a JSON value holds, as
// json.Unmarshal into a string sets it: "" for anything but a string.
func StringValue(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 && IsASCII(body) {
		return string(body)
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
