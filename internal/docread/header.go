package docread

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ObjectHeader is what a loader needs to know about a document before
// decoding it: its type, its identity, and whether it is a List.
type ObjectHeader struct {
	APIVersion   string
	Kind         string
	Name         string
	Namespace    string
	GenerateName string
	Items        []json.RawMessage
	HasItems     bool
	ItemsInvalid bool // "items" is present but not an array (or null)

	// ItemOffs are the offsets of Items in the document and ItemMembers
	// their members as the document's scan recorded them (nil when it did
	// not); Members are the document's own. TypeMetaExact says that no
	// top-level key other than "apiVersion" and "kind" matches them
	// case-insensitively, so that a decoder that matches keys exactly
	// reads the same apiVersion and kind as encoding/json.
	ItemOffs      []int
	ItemMembers   [][]Member
	TypeMetaExact bool
	Members       []Member
}

// ReadHeader reads the header of a JSON document. It fails only when the
// document is not a JSON object.
func ReadHeader(data []byte) (ObjectHeader, error) {
	members, ok := ScanMembers(data, true)
	if !ok {
		return readHeaderSlow(data)
	}
	return HeaderFromMembers(data, members), nil
}

// HeaderFromMembers is ReadHeader of a document already scanned: what
// json.Unmarshal into map[string]json.RawMessage (the last of duplicate
// keys wins) and then into the fields gives.
func HeaderFromMembers(data []byte, members []Member) ObjectHeader {
	h := ObjectHeader{TypeMetaExact: true, Members: members}
	var metadata, items *Member
	for i := range members {
		m := &members[i]
		raw := data[m.Value.Start:m.Value.End]
		switch m.Key {
		case "apiVersion":
			h.APIVersion = StringValue(raw)
		case "kind":
			h.Kind = StringValue(raw)
		case "metadata":
			metadata = m
		case "items":
			items = m
		default:
			if !typeMetaKeyExact(m.Key) {
				h.TypeMetaExact = false
			}
		}
	}
	if metadata != nil && data[metadata.Value.Start] == '{' {
		readNames(data[metadata.Value.Start:metadata.Value.End], &h)
	}
	if items != nil {
		h.HasItems = true
		switch {
		case items.Elems != nil:
			h.Items = make([]json.RawMessage, len(items.Elems))
			h.ItemOffs = make([]int, len(items.Elems))
			h.ItemMembers = items.ElemMembers
			for i, e := range items.Elems {
				h.Items[i] = data[e.Start:e.End:e.End]
				h.ItemOffs[i] = e.Start
			}
		case data[items.Value.Start] == 'n': // null
		default:
			h.ItemsInvalid = true
		}
	}
	return h
}

// typeMetaKeyExact reports whether a top-level key other than
// "apiVersion" and "kind" certainly does not match them the way
// encoding/json matches struct fields (case-insensitively, with Unicode
// folding for non-ASCII keys).
func typeMetaKeyExact(key string) bool {
	return IsASCII([]byte(key)) && !strings.EqualFold(key, "apiVersion") && !strings.EqualFold(key, "kind")
}

// readHeaderSlow is ReadHeader with encoding/json, for what the scanner
// does not take (documents nested too deep, invalid JSON).
func readHeaderSlow(data []byte) (ObjectHeader, error) {
	var h ObjectHeader
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return h, fmt.Errorf("document is not an object: expected a Kubernetes object with apiVersion and kind")
	}
	_ = json.Unmarshal(top["apiVersion"], &h.APIVersion)
	_ = json.Unmarshal(top["kind"], &h.Kind)
	var meta map[string]json.RawMessage
	if json.Unmarshal(top["metadata"], &meta) == nil {
		_ = json.Unmarshal(meta["name"], &h.Name)
		_ = json.Unmarshal(meta["namespace"], &h.Namespace)
		_ = json.Unmarshal(meta["generateName"], &h.GenerateName)
	}
	if raw, ok := top["items"]; ok {
		h.HasItems = true
		if err := json.Unmarshal(raw, &h.Items); err != nil {
			h.ItemsInvalid = true
		}
	}
	for k := range top {
		if k != "apiVersion" && k != "kind" && !typeMetaKeyExact(k) {
			return h, nil
		}
	}
	h.TypeMetaExact = true
	return h, nil
}

// IsList: "kind: List" (kubectl get -o yaml|json) or any typed list
// ("PodList", as the API returns it) that has items.
func (h ObjectHeader) IsList() bool {
	return h.Kind == "List" || (h.HasItems && strings.HasSuffix(h.Kind, "List"))
}

// HasKey reports whether the object the header was read from has the
// top-level key.
func (h ObjectHeader) HasKey(obj []byte, key string) bool {
	if h.Members == nil {
		return hasKey(obj, key)
	}
	for _, m := range h.Members {
		if m.Key == key {
			return true
		}
	}
	return false
}

func hasKey(obj []byte, key string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(obj, &top) != nil {
		return false
	}
	_, ok := top[key]
	return ok
}

// readNames sets h's name, namespace and generateName from raw, a
// metadata object, when it is a valid JSON object, as the members
// ScanMembers gives would (the last of a name given twice), without
// keeping the members (a List's items' metadata were 11 MB of garbage on
// a 23 MB file).
func readNames(raw []byte, h *ObjectHeader) {
	var name, namespace, generateName []byte
	i := skipJSONSpace(raw, 1)
	if i < len(raw) && raw[i] == '}' {
		i++
	} else {
		for {
			if i >= len(raw) || raw[i] != '"' {
				return
			}
			keyEnd, escaped := scanString(raw, i)
			if keyEnd < 0 {
				return
			}
			key := raw[i:keyEnd]
			i = skipJSONSpace(raw, keyEnd)
			if i >= len(raw) || raw[i] != ':' {
				return
			}
			i = skipJSONSpace(raw, i+1)
			end := scanValue(raw, i, 1)
			if end < 0 {
				return
			}
			k := key[1 : len(key)-1]
			if escaped {
				k = []byte(jsonKey(key, true))
			}
			switch string(k) {
			case "name":
				name = raw[i:end]
			case "namespace":
				namespace = raw[i:end]
			case "generateName":
				generateName = raw[i:end]
			}
			i = skipJSONSpace(raw, end)
			if i >= len(raw) {
				return
			}
			if raw[i] == '}' {
				i++
				break
			}
			if raw[i] != ',' {
				return
			}
			i = skipJSONSpace(raw, i+1)
		}
	}
	if skipJSONSpace(raw, i) != len(raw) {
		return
	}
	h.Name, h.Namespace, h.GenerateName = stringOrEmpty(name), stringOrEmpty(namespace), stringOrEmpty(generateName)
}

// stringOrEmpty is StringValue, "" for a value not given.
func stringOrEmpty(raw []byte) string {
	if raw == nil {
		return ""
	}
	return StringValue(raw)
}
