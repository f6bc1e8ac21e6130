package snapshot

// Decoding of one object: from the JSON of a document to a typed object of
// a kind schedtui reads. Where documents come from is source.go's business;
// what happens to decoded objects is loader.go's.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
	sigsjson "sigs.k8s.io/json"
)

// kindInfo describes a kind schedtui reads.
type kindInfo struct {
	kind       string
	gv         schema.GroupVersion
	namespaced bool
	nameFn     apimachineryvalidation.ValidateNameFunc
	newObj     func() runtime.Object
}

var supportedKinds = map[string]*kindInfo{}

func register(kind string, gv schema.GroupVersion, namespaced bool, nameFn apimachineryvalidation.ValidateNameFunc, newObj func() runtime.Object) {
	supportedKinds[kind] = &kindInfo{kind: kind, gv: gv, namespaced: namespaced, nameFn: nameFn, newObj: newObj}
}

func init() {
	core := v1.SchemeGroupVersion
	dnsSub := apimachineryvalidation.NameIsDNSSubdomain
	register("Node", core, false, dnsSub, func() runtime.Object { return &v1.Node{} })
	register("Pod", core, true, dnsSub, func() runtime.Object { return &v1.Pod{} })
	register("Namespace", core, false, apimachineryvalidation.NameIsDNSLabel, func() runtime.Object { return &v1.Namespace{} })
	register("PersistentVolume", core, false, dnsSub, func() runtime.Object { return &v1.PersistentVolume{} })
	register("PersistentVolumeClaim", core, true, dnsSub, func() runtime.Object { return &v1.PersistentVolumeClaim{} })
	register("Service", core, true, apimachineryvalidation.NameIsDNS1035Label, func() runtime.Object { return &v1.Service{} })
	register("ReplicationController", core, true, dnsSub, func() runtime.Object { return &v1.ReplicationController{} })
	register("PriorityClass", schedulingv1.SchemeGroupVersion, false, dnsSub, func() runtime.Object { return &schedulingv1.PriorityClass{} })
	register("PodDisruptionBudget", policyv1.SchemeGroupVersion, true, dnsSub, func() runtime.Object { return &policyv1.PodDisruptionBudget{} })
	register("StorageClass", storagev1.SchemeGroupVersion, false, dnsSub, func() runtime.Object { return &storagev1.StorageClass{} })
	register("CSINode", storagev1.SchemeGroupVersion, false, dnsSub, func() runtime.Object { return &storagev1.CSINode{} })
	register("CSIDriver", storagev1.SchemeGroupVersion, false, dnsSub, func() runtime.Object { return &storagev1.CSIDriver{} })
	register("CSIStorageCapacity", storagev1.SchemeGroupVersion, true, dnsSub, func() runtime.Object { return &storagev1.CSIStorageCapacity{} })
	register("VolumeAttachment", storagev1.SchemeGroupVersion, false, dnsSub, func() runtime.Object { return &storagev1.VolumeAttachment{} })
	register("ReplicaSet", appsv1.SchemeGroupVersion, true, dnsSub, func() runtime.Object { return &appsv1.ReplicaSet{} })
	register("StatefulSet", appsv1.SchemeGroupVersion, true, dnsSub, func() runtime.Object { return &appsv1.StatefulSet{} })
	register("DaemonSet", appsv1.SchemeGroupVersion, true, dnsSub, func() runtime.Object { return &appsv1.DaemonSet{} })
	register("RuntimeClass", nodev1.SchemeGroupVersion, false, dnsSub, func() runtime.Object { return &nodev1.RuntimeClass{} })
}

// SupportedKinds lists the kinds Load keeps, with the apiVersion each must
// have.
func SupportedKinds() map[string]string {
	out := make(map[string]string, len(supportedKinds))
	for k, ki := range supportedKinds {
		out[k] = ki.gv.String()
	}
	return out
}

// strictDecoder decodes JSON into typed objects of the client-go scheme,
// reporting unknown and duplicate fields as a strict decoding error while
// still returning the (leniently) decoded object.
var strictDecoder = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
	kjson.SerializerOptions{Strict: true})

// header is what the loader needs to know about a document before
// decoding it: its type, its identity, and whether it is a List.
type header struct {
	APIVersion   string
	Kind         string
	Name         string
	Namespace    string
	GenerateName string
	Items        []json.RawMessage
	HasItems     bool
	ItemsInvalid bool // "items" is present but not an array (or null)

	// itemOffs are the offsets of Items in the document and itemMembers
	// their members as the document's scan recorded them (nil when it did
	// not); members are the document's own. typeMetaExact says that no
	// top-level key other than "apiVersion" and "kind" matches them
	// case-insensitively (see decodeObjectChecked).
	itemOffs      []int
	itemMembers   [][]jsonMember
	typeMetaExact bool
	members       []jsonMember
}

// readHeader reads the header of a JSON document. It fails only when the
// document is not a JSON object.
func readHeader(data []byte) (header, error) {
	members, ok := scanMembers(data, true)
	if !ok {
		return readHeaderSlow(data)
	}
	return headerFromMembers(data, members), nil
}

// headerFromMembers is readHeader of a document already scanned: what
// json.Unmarshal into map[string]json.RawMessage (the last of duplicate
// keys wins) and then into the fields gives.
func headerFromMembers(data []byte, members []jsonMember) header {
	h := header{typeMetaExact: true, members: members}
	var metadata, items *jsonMember
	for i := range members {
		m := &members[i]
		raw := data[m.value.start:m.value.end]
		switch m.key {
		case "apiVersion":
			h.APIVersion = jsonStringValue(raw)
		case "kind":
			h.Kind = jsonStringValue(raw)
		case "metadata":
			metadata = m
		case "items":
			items = m
		default:
			if !typeMetaKeyExact(m.key) {
				h.typeMetaExact = false
			}
		}
	}
	if metadata != nil && data[metadata.value.start] == '{' {
		raw := data[metadata.value.start:metadata.value.end]
		if mm, ok := scanMembers(raw, false); ok {
			for _, m := range mm {
				v := raw[m.value.start:m.value.end]
				switch m.key {
				case "name":
					h.Name = jsonStringValue(v)
				case "namespace":
					h.Namespace = jsonStringValue(v)
				case "generateName":
					h.GenerateName = jsonStringValue(v)
				}
			}
		}
	}
	if items != nil {
		h.HasItems = true
		switch {
		case items.elems != nil:
			h.Items = make([]json.RawMessage, len(items.elems))
			h.itemOffs = make([]int, len(items.elems))
			h.itemMembers = items.elemMembers
			for i, e := range items.elems {
				h.Items[i] = data[e.start:e.end:e.end]
				h.itemOffs[i] = e.start
			}
		case data[items.value.start] == 'n': // null
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
	return isASCII([]byte(key)) && !strings.EqualFold(key, "apiVersion") && !strings.EqualFold(key, "kind")
}

// readHeaderSlow is readHeader with encoding/json, for what the scanner
// does not take (documents nested too deep, invalid JSON).
func readHeaderSlow(data []byte) (header, error) {
	var h header
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
	h.typeMetaExact = true
	return h, nil
}

// isList: "kind: List" (kubectl get -o yaml|json) or any typed list
// ("PodList", as the API returns it) that has items.
func (h header) isList() bool {
	return h.Kind == "List" || (h.HasItems && strings.HasSuffix(h.Kind, "List"))
}

// withTypeMeta returns the JSON of a List item with apiVersion and kind
// filled in from the typed List (API server responses like PodList omit
// them on items).
func withTypeMeta(item []byte, apiVersion, kind string) []byte {
	h, err := readHeader(item)
	if err != nil {
		return item
	}
	var add []string
	if h.APIVersion == "" && apiVersion != "" && !h.hasKey(item, "apiVersion") {
		b, _ := json.Marshal(apiVersion)
		add = append(add, `"apiVersion":`+string(b))
	}
	if h.Kind == "" && kind != "" && !h.hasKey(item, "kind") {
		b, _ := json.Marshal(kind)
		add = append(add, `"kind":`+string(b))
	}
	if len(add) == 0 {
		return item
	}
	i := bytes.IndexByte(item, '{')
	if i < 0 {
		return item
	}
	rest := bytes.TrimSpace(item[i+1:])
	sep := ","
	if bytes.HasPrefix(rest, []byte("}")) {
		sep = ""
	}
	out := make([]byte, 0, len(item)+64)
	out = append(out, item[:i+1]...)
	out = append(out, strings.Join(add, ",")...)
	out = append(out, sep...)
	out = append(out, item[i+1:]...)
	return out
}

// hasKey reports whether the object the header was read from has the
// top-level key.
func (h header) hasKey(obj []byte, key string) bool {
	if h.members == nil {
		return hasKey(obj, key)
	}
	for _, m := range h.members {
		if m.key == key {
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

var strictFieldRE = regexp.MustCompile(`^(unknown|duplicate) field "(.*)"$`)

// decodeObject decodes data into a new object of ki's type. Unknown and
// duplicate fields come back as warnings; errs is non-empty when the
// object cannot be decoded, and then obj is nil.
func decodeObject(ki *kindInfo, data []byte) (obj runtime.Object, warnings, errs []fieldIssue) {
	exact := false
	if h, err := readHeader(data); err == nil {
		exact = h.typeMetaExact && h.APIVersion == ki.gv.String() && h.Kind == ki.kind
	}
	return decodeObjectChecked(ki, data, exact)
}

// decodeObjectChecked is decodeObject. With exact, the caller has checked
// that data's apiVersion and kind are ki's and that no other top-level key
// matches them case-insensitively: then the object is decoded directly
// with sigs.k8s.io/json's strict decoder, which is what the client-go
// serializer ends up doing after reading apiVersion and kind again with
// encoding/json (case-insensitively, hence the check). Otherwise, and to
// word the error when the object cannot be decoded, the serializer
// decodes.
func decodeObjectChecked(ki *kindInfo, data []byte, exact bool) (obj runtime.Object, warnings, errs []fieldIssue) {
	into := ki.newObj()
	var out runtime.Object
	var err error
	var strictErrs []error
	if exact {
		strictErrs, err = sigsjson.UnmarshalStrict(data, into)
		if err == nil {
			out = into
		} else {
			// Let the serializer word the error, as it always did.
			exact, strictErrs, into = false, nil, ki.newObj()
		}
	}
	if !exact {
		out, _, err = strictDecoder.Decode(data, nil, into)
		if err != nil && runtime.IsStrictDecodingError(err) && out != nil {
			if se, ok := runtime.AsStrictDecodingError(err); ok {
				strictErrs = se.Errors()
			}
			err = nil
		}
	}
	for _, e := range strictErrs {
		msg := e.Error()
		if m := strictFieldRE.FindStringSubmatch(msg); m != nil {
			w := fieldIssue{Field: m[2], Message: "unknown field (ignored)"}
			if m[1] == "duplicate" {
				w.Message = "duplicate field (the last value is used)"
			}
			warnings = append(warnings, w)
		} else {
			warnings = append(warnings, fieldIssue{Message: msg})
		}
	}
	if err != nil {
		errs = locateDecodeErrors(data, reflect.TypeOf(into), 20)
		if len(errs) == 0 {
			errs = []fieldIssue{{Message: cleanDecodeError(err)}}
		}
		return nil, warnings, errs
	}
	if out == nil {
		return nil, warnings, []fieldIssue{{Message: "cannot decode object"}}
	}
	return out, warnings, nil
}

func cleanDecodeError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return msg
}

// issuesFromFieldErrors converts apimachinery field errors.
func issuesFromFieldErrors(errs field.ErrorList) []fieldIssue {
	out := make([]fieldIssue, 0, len(errs))
	for _, e := range errs {
		if e == nil {
			continue
		}
		out = append(out, fieldIssue{Field: e.Field, Message: e.ErrorBody()})
	}
	return out
}
