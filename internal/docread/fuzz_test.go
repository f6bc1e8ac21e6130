package docread

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzJSONScan checks the fast JSON scanner against encoding/json: a
// stream it reads must be read the same by the encoding/json reader (same
// documents, lines and item lines), a document it takes must be valid
// JSON with the same header, and what HasKey answers from the scanned
// members must be what it answers from the whole document.
func FuzzJSONScan(f *testing.F) {
	for _, s := range []string{
		"", "null", "[]", "{}", "{\"kind\": \"List\", \"items\": [null, 1, {}]}", "{\"a\": 1,}",
		"{\"kind\": \"Pod\", \"metadata\": {\"generateName\": \"x-\"}}",
		"{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"NodeList\",\n  \"items\": [\n    {\"metadata\": {\"name\": \"n1\"}},\n    {\"metadata\": {\"name\": \"n2\"}}\n  ]\n}\n",
		"{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}}\n{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n2\"}}\n",
		"[\n  {\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}},\n  {\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n2\"}}\n]\n",
		`{"kind":"List","kind":"Pod","items":[{"a":1}],"items":null}`,
		`{"KIND":"List","metadata":{"annotations":{"schedtui.dev/schedtui-snapshot":"v1"}},"items":[]}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1x"}}}],"bogus":1,"priority":1,"priority":2}}`,
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"cpu":"4"}},"spec":{"taints":[{"key":"k","effect":5}]}}`,
		`{"kind":"List","KIND":null,"metadata":{"annotations":{"schedtui.dev/schedtui-snapshot":"v1"}},"Metadata":{"annotations":{"schedtui.dev/context":"c"}}}`,
		`{"\u212aind":"List","metadata":{"annotations":{"schedtui.dev/schedtui-snapshot":"v1","schedtui.dev/context":"c"}}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a\u00e9","namespace":5,"generateName":null}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns","labels":{"name":"x"},"generateName":"g-","n\u0061mespace":"b"}}`,
		`{"kind":"List","items":[{"kind":"Pod","metadata":{ "namespace" : "ns" , "name":"a","name":"b" }},{"kind":"Pod","metadata":{}}]}`,
		`{"kind":"Pod","metadata":{"name":"a",}}`, `{"kind":"Pod","metadata":{"name":"a"} }`,
		`[{"a":"\ud800"}, 1, "x", null, {"items":[1,[2],{"3":4}]}]` + "\n{}{}",
		`{"kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}},{"kind":"List","items":[{"kind":"Node"}]},{"Kind":"x","kind":null,"metadata":null}, 3]}`,
		`{"a":-0.5e+10,"b":[true,false,null],"c":"\t"}`, `{"a":01}`, `{"a":1.}`, `{"a":"\x"}`, `{"a" 1}`, `{,}`, `[1,]`,
		`{"kind":"Pod","deep":` + strings.Repeat("[", maxScanDepth+1) + strings.Repeat("]", maxScanDepth+1) + `}`,
		"{\"kind\":\"Node\"}\n---\nkind: Node\n", "[{}]\n{}\nkind: x\n", "{}\n{\"a\":}\nkind: x\n",
		"{}\n==== START logs for container c of pod a/b ====\n{\n==== END logs for container c of pod a/b ====\n{}\n",
		"==== START logs for container c of pod a/b ====\r\n}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Where a JSON stream goes on as YAML, it is JSON up to there.
		end := jsonStreamEnd(data)
		if end > 0 {
			if _, err := readJSONStreamSlow("f.json", data[:end]); err != nil {
				t.Fatalf("JSON up to %d, encoding/json: %v", end, err)
			}
		}
		// Read in one pass, the JSON documents are those read up to
		// there in two.
		if docs, at, ok := readJSONDocumentsFast("f.json", data, true); ok {
			if end == 0 {
				end = len(data)
			}
			want, wantOK := readJSONStreamFast("f.json", data[:end])
			if at != end || !wantOK || len(docs) != len(want) {
				t.Fatalf("one pass: %d documents up to %d; two: %d up to %d (%v)", len(docs), at, len(want), end, wantOK)
			}
			for i := range docs {
				if docs[i].Line != want[i].Line || !bytes.Equal(docs[i].JSON, want[i].JSON) || !reflect.DeepEqual(docs[i].Members(), want[i].Members()) {
					t.Fatalf("one pass: document %d at line %d %q; two: line %d %q", i, docs[i].Line, docs[i].JSON, want[i].Line, want[i].JSON)
				}
			}
		}
		// Blanking kubectl cluster-info dump's logs keeps every line.
		if blank, n := WithoutDumpLogs(data); len(blank) != len(data) || bytes.Count(blank, []byte{'\n'}) != bytes.Count(data, []byte{'\n'}) ||
			n == 0 && !bytes.Equal(blank, data) {
			t.Fatalf("blanking %d log sections changed the lines", n)
		}
		if fast, ok := readJSONStreamFast("f.json", data); ok {
			slow, err := readJSONStreamSlow("f.json", data)
			if err != nil {
				t.Fatalf("fast reader took what encoding/json rejects: %v", err)
			}
			if len(fast) != len(slow) {
				t.Fatalf("%d documents, encoding/json reads %d", len(fast), len(slow))
			}
			for i := range fast {
				a, b := fast[i], slow[i]
				if a.Line != b.Line || !bytes.Equal(a.JSON, b.JSON) {
					t.Fatalf("document %d: line %d %q, encoding/json: line %d %q", i, a.Line, a.JSON, b.Line, b.JSON)
				}
				for _, key := range []string{"items", "pods"} {
					la, lb := a.KeyItemLines(key), b.KeyItemLines(key)
					if len(la) != len(lb) || (len(la) > 0 && !reflect.DeepEqual(la, lb)) {
						t.Fatalf("document %d: %s lines %v, encoding/json: %v", i, key, la, lb)
					}
				}
			}
		}
		members, ok := ScanMembers(data, true)
		if !ok {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("scanner took invalid JSON")
		}
		fast := HeaderFromMembers(data, members)
		slow, err := readHeaderSlow(data)
		if err != nil {
			t.Fatalf("scanner took a document encoding/json does not: %v", err)
		}
		// The members the scan recorded for the items give their headers.
		if len(fast.ItemMembers) != len(fast.Items) && fast.ItemMembers != nil {
			t.Fatalf("%d items, members for %d", len(fast.Items), len(fast.ItemMembers))
		}
		for i, mm := range fast.ItemMembers {
			if mm == nil || hasMember(mm, "items") {
				continue
			}
			item := fast.Items[i]
			a := HeaderFromMembers(item, mm)
			b, err := readHeaderSlow(item)
			a.Members = nil
			if err != nil || !reflect.DeepEqual(normItems(a), normItems(b)) {
				t.Fatalf("item %d: header %+v, encoding/json: %+v %v", i, a, b, err)
			}
		}
		fast.Members, fast.ItemOffs, fast.ItemMembers = nil, nil, nil
		if !reflect.DeepEqual(normItems(fast), normItems(slow)) {
			t.Fatalf("header %+v, encoding/json: %+v", fast, slow)
		}
		h := ObjectHeader{Members: members}
		for _, key := range []string{"apiVersion", "kind", "items", "metadata"} {
			if h.HasKey(data, key) != hasKey(data, key) {
				t.Fatalf("hasKey(%q) disagrees", key)
			}
		}
	})
}

func hasMember(members []Member, key string) bool {
	for _, m := range members {
		if m.Key == key {
			return true
		}
	}
	return false
}

// normItems makes a header's items comparable: the bytes, not the slices.
func normItems(h ObjectHeader) ObjectHeader {
	if h.Items != nil {
		items := make([]json.RawMessage, len(h.Items))
		for i, it := range h.Items {
			items[i] = append(json.RawMessage{}, it...)
		}
		h.Items = items
	}
	return h
}
