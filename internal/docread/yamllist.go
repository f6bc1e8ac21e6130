package docread

import (
	"bytes"

	"sigs.k8s.io/yaml"
)

// A YAML List of a snapshot is one document, converted to JSON in one call
// that reports nothing until it ends: most of a YAML snapshot's load. So a
// long document whose top-level "items" is a block sequence is converted in
// parts (the mapping without the sequence's entries, then runs of entries),
// each part reported as it is converted, and the parts' JSON put together.
// The JSON is the same as the whole document's: a sequence entry converts
// alone as it does within the document unless it refers to an anchor
// outside it, which fails its conversion. Whenever a part fails, or could
// convert otherwise than within the document, the whole document is
// converted as before, so errors, warnings and their lines stay its.

// listInPartsMinBytes is the length from which a document is converted in
// parts; shorter ones convert quickly enough whole.
var listInPartsMinBytes = 1 << 20

// listPartBytes is about the YAML of a run of entries converted at once.
var listPartBytes = 256 << 10

// itemsSequence locates the entries of the block sequence under the
// top-level key "items" of text: the offset of every entry's first line,
// and where the sequence ends. ok is false when there is no such sequence
// (no "items" key at the start of a line, flow style, unusual layout).
func itemsSequence(text []byte) (entries []int, end int, ok bool) {
	off := 0
	found := false
	for off < len(text) {
		l, next := lineAt(text, off)
		off = next
		if rest, ok := bytes.CutPrefix(l, []byte("items:")); ok {
			rest = bytes.TrimSpace(rest)
			if len(rest) > 0 && rest[0] != '#' {
				return nil, 0, false // flow style or scalar
			}
			found = true
			break
		}
	}
	if !found {
		return nil, 0, false
	}
	seqIndent := -1
	for off < len(text) {
		l, next := lineAt(text, off)
		ind := 0
		for ind < len(l) && l[ind] == ' ' {
			ind++
		}
		content := l[ind:]
		if len(bytes.TrimSpace(content)) == 0 || content[0] == '#' {
			off = next
			continue
		}
		entry := isSeqEntry(content)
		if seqIndent < 0 {
			if !entry {
				return nil, 0, false
			}
			seqIndent = ind
		}
		if ind < seqIndent || ind == seqIndent && !entry {
			return entries, off, true
		}
		if ind == seqIndent {
			entries = append(entries, off)
		}
		off = next
	}
	return entries, len(text), len(entries) > 0
}

// lineAt is the line of text starting at off, without its line break, and
// the offset of the next one.
func lineAt(text []byte, off int) (line []byte, next int) {
	next = len(text)
	if i := bytes.IndexByte(text[off:], '\n'); i >= 0 {
		next = off + i + 1
	}
	return bytes.TrimRight(text[off:next], "\r\n"), next
}

// convertListInParts converts text, a YAML document, to JSON in parts (see
// above), calling converted with the offset in text up to which it is
// converted after each part. ok is false when it cannot: the caller then
// converts the whole document.
func convertListInParts(text []byte, converted func(off int)) (js []byte, ok bool) {
	entries, end, ok := itemsSequence(text)
	if !ok {
		return nil, false
	}
	outer := make([]byte, 0, entries[0]+len(text)-end)
	outer = append(append(outer, text[:entries[0]]...), text[end:]...)
	// An alias in the mapping would refer to the last anchor of its name
	// before it, which may be in the entries left out; a directive may
	// declare tags the entries use. Both are rare in a snapshot: convert
	// such a document whole.
	if bytes.IndexByte(outer, '*') >= 0 || bytes.HasPrefix(outer, []byte("%")) || bytes.Contains(outer, []byte("\n%")) {
		return nil, false
	}
	outerJS, err := yaml.YAMLToJSONStrict(outer)
	if err != nil {
		return nil, false
	}
	members, ok := ScanMembers(outerJS, false)
	if !ok {
		return nil, false
	}
	var items *Member
	for i := range members {
		if members[i].Key == "items" {
			if items != nil {
				return nil, false
			}
			items = &members[i]
		}
	}
	if items == nil || string(outerJS[items.Value.Start:items.Value.End]) != "null" {
		return nil, false
	}
	// The entries' JSON is about as long as their YAML.
	out := make([]byte, 0, len(text)+len(outerJS))
	out = append(append(out, outerJS[:items.Value.Start]...), '[')
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j]-entries[i] < listPartBytes {
			j++
		}
		partEnd := end
		if j < len(entries) {
			partEnd = entries[j]
		}
		part, err := yaml.YAMLToJSONStrict(text[entries[i]:partEnd])
		if err != nil || len(part) < 2 || part[0] != '[' || part[len(part)-1] != ']' {
			return nil, false
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, part[1:len(part)-1]...)
		if converted != nil {
			converted(partEnd)
		}
		i = j
	}
	out = append(append(out, ']'), outerJS[items.Value.End:]...)
	return out, true
}
