package snapshot

// Step 3 of reading a snapshot: decoding each object, from the JSON of a
// document or List item (documents.go) to a typed object of a kind
// schedtui reads (a protobuf item is decoded by protobuf.go). The kinds
// are registered here. Decoded objects go to the API server's step
// (admit.go).

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
	sigsjson "sigs.k8s.io/json"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// kindInfo describes a kind schedtui reads.
type kindInfo struct {
	kind       string
	gv         schema.GroupVersion
	namespaced bool
	nameFn     apimachineryvalidation.ValidateNameFunc
	newObj     func() runtime.Object
	// fastJSON says that the kind's objects are decoded by JSON v2
	// first (decode_fast.go).
	fastJSON bool
}

var supportedKinds = map[string]*kindInfo{}

func register(kind string, gv schema.GroupVersion, namespaced bool, nameFn apimachineryvalidation.ValidateNameFunc, newObj func() runtime.Object) {
	supportedKinds[kind] = &kindInfo{kind: kind, gv: gv, namespaced: namespaced, nameFn: nameFn, newObj: newObj}
}

func init() {
	core := v1.SchemeGroupVersion
	dnsSub := apiserver.NameIsDNSSubdomain
	register("Node", core, false, dnsSub, func() runtime.Object { return &v1.Node{} })
	register("Pod", core, true, dnsSub, func() runtime.Object { return &v1.Pod{} })
	register("Namespace", core, false, apiserver.NameIsDNSLabel, func() runtime.Object { return &v1.Namespace{} })
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
	res := resourcev1.SchemeGroupVersion
	register("DeviceClass", res, false, dnsSub, func() runtime.Object { return &resourcev1.DeviceClass{} })
	register("ResourceSlice", res, false, dnsSub, func() runtime.Object { return &resourcev1.ResourceSlice{} })
	register("ResourceClaim", res, true, dnsSub, func() runtime.Object { return &resourcev1.ResourceClaim{} })
	register("ResourceClaimTemplate", res, true, dnsSub, func() runtime.Object { return &resourcev1.ResourceClaimTemplate{} })
	register("DeviceTaintRule", res, false, dnsSub, func() runtime.Object { return &resourcev1.DeviceTaintRule{} })
	// Workload-aware scheduling: the versions v1.37 serves.
	register("Workload", schedulingv1beta1.SchemeGroupVersion, true, dnsSub, func() runtime.Object { return &schedulingv1beta1.Workload{} })
	register("PodGroup", schedulingv1beta1.SchemeGroupVersion, true, dnsSub, func() runtime.Object { return &schedulingv1beta1.PodGroup{} })
	register("CompositePodGroup", schedulingv1alpha3.SchemeGroupVersion, true, dnsSub, func() runtime.Object { return &schedulingv1alpha3.CompositePodGroup{} })
	for _, ki := range supportedKinds {
		t := reflect.TypeOf(ki.newObj())
		kindsByType[t] = ki
		ki.fastJSON = fastJSONSafe(t.Elem())
	}
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

// withTypeMeta returns the JSON of a List item with apiVersion and kind
// filled in from the typed List (API server responses like PodList omit
// them on items).
func withTypeMeta(item []byte, apiVersion, kind string) []byte {
	h, err := docread.ReadHeader(item)
	if err != nil {
		return item
	}
	var add []string
	if h.APIVersion == "" && apiVersion != "" && !h.HasKey(item, "apiVersion") {
		b, _ := json.Marshal(apiVersion)
		add = append(add, `"apiVersion":`+string(b))
	}
	if h.Kind == "" && kind != "" && !h.HasKey(item, "kind") {
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

// decodeObject decodes data into a new object of ki's type. Unknown and
// duplicate fields come back as warnings; errs is non-empty when the
// object cannot be decoded, and then obj is nil.
func decodeObject(ki *kindInfo, data []byte) (obj runtime.Object, warnings, errs []docread.FieldIssue) {
	exact := false
	if h, err := docread.ReadHeader(data); err == nil {
		exact = h.TypeMetaExact && h.APIVersion == ki.gv.String() && h.Kind == ki.kind
	}
	return decodeObjectChecked(ki, data, exact)
}

// decodeObjectChecked is decodeObject. With exact, the caller has checked
// that data's apiVersion and kind are ki's and that no other top-level key
// matches them case-insensitively: then the object is decoded by the fast
// path (decode_fast.go), which succeeds only where the strict decoder
// would with no warning and an equal object, else directly with
// sigs.k8s.io/json's strict decoder, which is what the client-go
// serializer ends up doing after reading apiVersion and kind again with
// encoding/json (case-insensitively, hence the check). Otherwise, and to
// word the error when the object cannot be decoded, the serializer
// decodes.
func decodeObjectChecked(ki *kindInfo, data []byte, exact bool) (obj runtime.Object, warnings, errs []docread.FieldIssue) {
	obj, warnings, errs, _ = decodeObjectSharing(ki, data, exact, nil)
	return obj, warnings, errs
}

// decodeObjectSharing is decodeObjectChecked; with table not nil, the
// fast path looks a pod's or a node's parts up in it by their bytes
// (share_json.go), and found are those parts, to settle once the object
// is defaulted (nil when the object was decoded in full).
func decodeObjectSharing(ki *kindInfo, data []byte, exact bool, table *sharedParts) (obj runtime.Object, warnings, errs []docread.FieldIssue, found *foundParts) {
	if jsonDecodeObserver != nil {
		jsonDecodeObserver(ki, data, exact)
	}
	if exact {
		if obj, found := decodeFastJSONSharing(ki, data, table); obj != nil {
			return obj, nil, nil, found
		}
	}
	obj, warnings, errs = decodeObjectStrict(ki, data, exact)
	return obj, warnings, errs, nil
}

// decodeObjectStrict is decodeObjectChecked without the fast path.
func decodeObjectStrict(ki *kindInfo, data []byte, exact bool) (obj runtime.Object, warnings, errs []docread.FieldIssue) {
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
		if what, fld, ok := docread.StrictField(msg); ok {
			w := docread.FieldIssue{Field: fld, Message: "unknown field (ignored)"}
			if what == "duplicate" {
				w.Message = "duplicate field (the last value is used)"
			}
			warnings = append(warnings, w)
		} else {
			warnings = append(warnings, docread.FieldIssue{Message: msg})
		}
	}
	if err != nil {
		errs = docread.LocateDecodeErrors(data, reflect.TypeOf(into), 20)
		if len(errs) == 0 {
			errs = []docread.FieldIssue{{Message: docread.CleanDecodeError(err)}}
		}
		return nil, warnings, errs
	}
	if out == nil {
		return nil, warnings, []docread.FieldIssue{{Message: "cannot decode object"}}
	}
	return out, warnings, nil
}

// addEncoded decodes one object of a supported kind.
func (l *Loader) addEncoded(file string, line int, data []byte, h docread.ObjectHeader) {
	l.addDecoded(file, line, data, h, nil)
}

// decoded is the outcome of decodeObject for an object decoded ahead.
type decoded struct {
	obj            runtime.Object
	warnings, errs []docread.FieldIssue
	checked        *checkedObject // nil when not checked ahead
	// found are a pod's or a node's parts found by their bytes
	// (share_protobuf.go, share_json.go), for the check when it is not
	// made ahead.
	found *foundParts
}

// addDecoded is addEncoded; dec, when not nil, is what decoding data
// gave.
func (l *Loader) addDecoded(file string, line int, data []byte, h docread.ObjectHeader, dec *decoded) {
	if h.Kind == "" {
		l.report.Errorf(file, line, "", "kind", "Required value: every object needs apiVersion and kind")
		return
	}
	ki := supportedKinds[h.Kind]
	if ki == nil {
		l.noteUnknownKind(h.Kind, h.APIVersion, l.at(file, line))
		return
	}
	ns := h.Namespace
	if !ki.namespaced {
		ns = ""
	} else if ns == "" {
		ns = metav1.NamespaceDefault
	}
	name := h.Name
	if name == "" && h.GenerateName != "" {
		name = h.GenerateName + "*"
	}
	desc := describe(ki.kind, ns, name)
	if h.APIVersion != ki.gv.String() {
		p := field.NewPath("apiVersion")
		var fe *field.Error
		if h.APIVersion == "" {
			fe = field.Required(p, "")
		} else {
			fe = field.NotSupported(p, h.APIVersion, []string{ki.gv.String()})
		}
		l.report.Errorf(file, line, desc, fe.Field, "%s", fe.ErrorBody())
		return
	}
	var obj runtime.Object
	var warnings, errs []docread.FieldIssue
	var chk *checkedObject
	var found *foundParts
	if dec != nil {
		obj, warnings, errs, chk, found = dec.obj, dec.warnings, dec.errs, dec.checked, dec.found
	} else {
		obj, warnings, errs, found = decodeObjectSharing(ki, data, h.TypeMetaExact, l.share)
	}
	for _, w := range warnings {
		l.report.Warnf(file, line, desc, w.Field, "%s", w.Message)
	}
	for _, e := range errs {
		l.report.Errorf(file, line, desc, e.Field, "%s", e.Message)
	}
	if obj == nil {
		return
	}
	l.addChecked(ki, obj, l.at(file, line), chk, found)
}

var kindsByType = map[reflect.Type]*kindInfo{}
