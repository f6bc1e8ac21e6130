package snapshot

import (
	"crypto/sha1"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// Step 5 of reading a snapshot: the cluster. The Loader keeps every object
// the API server's step accepted, refusing duplicate names and UIDs, and
// Finish completes the cluster (built-in priority classes, admission,
// generated claims, default storage classes).

// Loader accumulates objects from any number of sources (files, a
// directory, a live cluster) into one Cluster. Objects are decoded,
// defaulted, validated and de-duplicated as they are added; the steps that
// need the whole picture (priority admission, the built-in priority
// classes, default storage classes) run in Finish.
type Loader struct {
	cluster *Cluster
	report  *docread.Report

	names map[objKey]origin
	// uids are the objects that took each UID, whose origin is in names.
	uids map[types.UID]objKey
	// changeOrigins are where a recording's changes come from, which
	// names does not hold: originOf reads names for the rest.
	changeOrigins map[runtime.Object]origin
	generated     map[runtime.Object]bool
	defaultPC     *schedulingv1.PriorityClass // first accepted globalDefault class

	unknown    []*unknownKind
	unknownIdx map[string]*unknownKind
	seq        int
	finished   bool

	// configs are the scheduler configurations snapshots carried;
	// headers the capture headers found.
	configs            []EmbeddedConfig
	headers            []*Header
	sawSimulatorExport bool

	// meter hears how far the load is (OpenReporting), or is nil.
	meter *loadMeter
	// budget is what is left to read (MaxSnapshotSize).
	budget *readBudget
	// validation is the API server's gates for validating objects (see
	// ValidateUnder).
	validation apiserver.ValidationOptions
	// file is the file being read when it is in a fileBuffer, whose part
	// already added is given back as the load goes.
	file *fileBuffer
	// share is the parts of the pods and nodes read so far (share.go),
	// until Finish.
	share *sharedParts
	// documents counts the documents read (a protobuf List's items);
	// stored the objects kept.
	documents, stored int
}

type origin struct {
	file string
	line int
	// item is the object's place in its List when the line does not
	// tell it (docread.Problem.Item).
	item string
}

// at is the origin of an object added now: file and line, and the item
// being added (enterItem).
func (l *Loader) at(file string, line int) origin {
	return origin{file: file, line: line, item: l.report.Item()}
}

// reportingAt makes the problems reported until restore is called carry
// at's item.
func (l *Loader) reportingAt(at origin) (restore func()) {
	prev := l.report.Item()
	l.report.SetItem(at.item)
	return func() { l.report.SetItem(prev) }
}

func (o origin) String() string {
	if o.file == "" {
		return "built-in"
	}
	s := o.file
	if o.line > 0 {
		s += ":" + strconv.Itoa(o.line)
	}
	if o.item != "" {
		s += " (" + o.item + ")"
	}
	return s
}

type objKey struct{ kind, namespace, name string }

// originOf is where obj, added to the loader, comes from.
func (l *Loader) originOf(obj runtime.Object) origin {
	if at, ok := l.changeOrigins[obj]; ok {
		return at
	}
	ki := kindsByType[reflect.TypeOf(obj)]
	acc, err := meta.Accessor(obj)
	if ki == nil || err != nil {
		return origin{}
	}
	return l.names[objKey{ki.kind, acc.GetNamespace(), acc.GetName()}]
}

type unknownKind struct {
	kind, apiVersion string
	at               origin
	count            int
}

// NewLoader returns an empty Loader.
func NewLoader() *Loader {
	return &Loader{
		cluster:       &Cluster{},
		report:        &docread.Report{},
		names:         map[objKey]origin{},
		uids:          map[types.UID]objKey{},
		changeOrigins: map[runtime.Object]origin{},
		generated:     map[runtime.Object]bool{},
		unknownIdx:    map[string]*unknownKind{},
		budget:        newReadBudget(),
		share:         newSharedParts(),
	}
}

// expect makes room in the maps of names and UIDs for n objects
// about to be added, when none was added yet (a snapshot's one List):
// grown by doubling, they allocated 1 GB at a million pods.
func (l *Loader) expect(n int) {
	if len(l.names) > 0 || len(l.uids) > 0 || n < 1024 {
		return
	}
	l.names = make(map[objKey]origin, n)
	l.uids = make(map[types.UID]objKey, n)
}

func describe(kind, namespace, name string) string {
	if name == "" {
		name = "<unnamed>"
	}
	if namespace != "" {
		return kind + " " + namespace + "/" + name
	}
	return kind + " " + name
}

// AddObject adds an already typed object (e.g. read from a live cluster
// with client-go). file and line, if known, are used in problems. The
// object is defaulted and validated like a decoded one; it is not copied.
func (l *Loader) AddObject(obj runtime.Object, file string, line int) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return
	}
	ki := kindsByType[reflect.TypeOf(obj)]
	if ki == nil {
		gvk := obj.GetObjectKind().GroupVersionKind()
		kind := gvk.Kind
		if kind == "" {
			kind = reflect.TypeOf(obj).String()
		}
		l.noteUnknownKind(kind, gvk.GroupVersion().String(), l.at(file, line))
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(ki.gv.WithKind(ki.kind))
	l.addTyped(ki, obj, l.at(file, line))
}

func (l *Loader) noteUnknownKind(kind, apiVersion string, at origin) {
	key := kind
	u := l.unknownIdx[key]
	if u == nil {
		u = &unknownKind{kind: kind, apiVersion: apiVersion, at: at}
		l.unknownIdx[key] = u
		l.unknown = append(l.unknown, u)
	}
	u.count++
}

// addTyped normalizes, defaults, validates and stores one object.
func (l *Loader) addTyped(ki *kindInfo, obj runtime.Object, at origin) {
	l.addChecked(ki, obj, at, nil, nil)
}

// addChecked is addTyped; chk, when not nil, is checkObject's result,
// computed ahead; else found is the parts of a protobuf pod found by their
// bytes (see defaultAndValidate).
func (l *Loader) addChecked(ki *kindInfo, obj runtime.Object, at origin, chk *checkedObject, found *foundParts) {
	if chk == nil {
		acc, err := meta.Accessor(obj)
		if err != nil {
			l.report.Errorf(at.file, at.line, ki.kind, "metadata", "%v", err)
			return
		}
		cleared := normalizeNamespace(ki, acc)
		l.warnClearedNamespace(ki, acc, cleared, at)
		if acc.GetName() == "" && acc.GetGenerateName() != "" {
			acc.SetName(l.generateName(acc.GetGenerateName(), at))
			l.generated[obj] = true
		}
		chk = &checkedObject{acc: acc}
		chk.errs, chk.dropped = defaultAndValidate(ki, obj, acc, l.validation, l.share, found)
	} else {
		l.warnClearedNamespace(ki, chk.acc, chk.clearedNamespace, at)
	}
	acc := chk.acc
	// Named only for a problem: most objects have none.
	desc := func() string { return describe(ki.kind, acc.GetNamespace(), acc.GetName()) }
	// A dropped field may be why the object is invalid (a Workload whose
	// only templates were composite): say so first.
	if len(chk.dropped) > 0 {
		l.warnDropped(at.file, at.line, desc(), ki.kind, chk.dropped)
	}
	if len(chk.errs) > 0 {
		for _, e := range docread.IssuesFromFieldErrors(chk.errs) {
			l.report.Errorf(at.file, at.line, desc(), e.Field, "%s", e.Message)
		}
		return
	}
	if pc, ok := obj.(*schedulingv1.PriorityClass); ok && pc.GlobalDefault && l.defaultPC != nil {
		err := apierrors.NewForbidden(schema.GroupResource{Group: schedulingv1.GroupName, Resource: "priorityclasses"}, pc.Name,
			fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", l.defaultPC.Name))
		l.report.Errorf(at.file, at.line, desc(), "globalDefault", "%s", err.Error())
		return
	}

	key := objKey{ki.kind, acc.GetNamespace(), acc.GetName()}
	if prev, dup := l.names[key]; dup {
		err := apierrors.NewAlreadyExists(schema.GroupResource{Group: ki.gv.Group, Resource: resourceName(ki.kind)}, acc.GetName())
		l.report.Errorf(at.file, at.line, desc(), "metadata.name", "%s (first defined at %s)", err.Error(), prev)
		return
	}
	if acc.GetUID() == "" {
		acc.SetUID(deriveUID(ki.kind, acc.GetNamespace(), acc.GetName()))
	}
	if prev, dup := l.uids[acc.GetUID()]; dup {
		fe := field.Duplicate(field.NewPath("metadata", "uid"), string(acc.GetUID()))
		l.report.Errorf(at.file, at.line, desc(), fe.Field, "%s (already used by %s at %s)", fe.ErrorBody(),
			describe(prev.kind, prev.namespace, prev.name), l.names[prev])
		return
	}
	// The origin is kept once, under the name: the maps of names, UIDs
	// and origins were 540 bytes a pod.
	l.names[key] = at
	l.uids[acc.GetUID()] = key
	l.store(obj)
	if pc, ok := obj.(*schedulingv1.PriorityClass); ok && pc.GlobalDefault {
		l.defaultPC = pc
	}
}

// resourceName returns the REST resource of a kind, for API-style messages.
func resourceName(kind string) string {
	lower := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(lower, "ss"):
		return lower + "es"
	case strings.HasSuffix(lower, "y"):
		return strings.TrimSuffix(lower, "y") + "ies"
	default:
		return lower + "s"
	}
}

// deriveUID returns a stable UUID (version 5 layout) for objects that have
// none: the scheduler keys pods by UID.
func deriveUID(kind, namespace, name string) types.UID {
	sum := sha1.Sum([]byte("schedtui/" + kind + "/" + namespace + "/" + name))
	b := sum[:16]
	b[6] = (b[6] & 0x0f) | 0x50
	b[8] = (b[8] & 0x3f) | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// generateName mimics the API server's name generator (5 characters from
// its alphabet after the prefix truncated to 58), deterministically.
func (l *Loader) generateName(base string, at origin) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	const maxBase = 63 - 5
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	l.seq++
	sum := sha1.Sum([]byte(fmt.Sprintf("%s:%d:%d:%s", at.file, at.line, l.seq, base)))
	var suffix [5]byte
	for i := range suffix {
		suffix[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	return base + string(suffix[:])
}

func (l *Loader) store(obj runtime.Object) {
	l.cluster.add(obj)
	l.stored++
}

// NothingLoadedError says that no object of a snapshot could be loaded:
// it holds none (an empty file), or all of them were refused.
type NothingLoadedError struct {
	Path string
	// Errors are the first problems that refused objects (at most
	// maxNothingLoadedErrors), Refused how many there are in all.
	Errors  []docread.Problem
	Refused int
}

// maxNothingLoadedErrors bounds the problems a NothingLoadedError lists.
const maxNothingLoadedErrors = 10

func (e *NothingLoadedError) Error() string {
	if e.Refused == 0 {
		return fmt.Sprintf("%s: no objects to load: it is empty, or holds nothing but comments", e.Path)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: nothing loaded:", e.Path)
	for _, p := range e.Errors {
		b.WriteString("\n  " + p.String())
	}
	if more := e.Refused - len(e.Errors); more > 0 {
		fmt.Fprintf(&b, "\n  (and %d more errors)", more)
	}
	return b.String()
}

// nothingLoaded is the NothingLoadedError of a snapshot at path read
// into l, when nothing could be loaded from it: no document, or none of
// its objects, with errors. A snapshot that holds no objects on purpose
// (an empty List) loads.
func (l *Loader) nothingLoaded(path string, r *docread.Report) error {
	if l.stored > 0 || l.documents > 0 && !r.HasErrors() {
		return nil
	}
	omitted, _ := r.Omitted()
	e := &NothingLoadedError{Path: path, Refused: omitted}
	for _, p := range r.Problems {
		if p.Severity != docread.Error || p.CountsOmitted() {
			continue
		}
		if len(e.Errors) < maxNothingLoadedErrors {
			e.Errors = append(e.Errors, p)
		}
		e.Refused++
	}
	return e
}

// Finish runs the steps that need every object (built-in priority classes,
// pod admission, default storage classes), and returns the cluster and the
// report. Call it once, after the last object was added.
func (l *Loader) Finish() (*Cluster, *docread.Report) {
	if l.finished {
		return l.cluster, l.report
	}
	l.finished = true
	l.share = nil
	for _, pc := range apiserver.SystemPriorityClasses() {
		key := objKey{"PriorityClass", "", pc.Name}
		if _, ok := l.names[key]; ok {
			continue
		}
		pc.UID = deriveUID("PriorityClass", "", pc.Name)
		// As every loaded object, typed.
		pc.SetGroupVersionKind(schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"))
		l.names[key] = origin{}
		l.cluster.PriorityClasses = append(l.cluster.PriorityClasses, pc)
	}
	l.admitPods()
	l.admitPodGroups()
	l.generateTemplateClaims()
	l.admitPersistentVolumeClaims()
	l.checkNodeNames()
	for _, u := range l.unknown {
		what := "kind " + u.kind
		if u.apiVersion != "" {
			what += " (apiVersion " + u.apiVersion + ")"
		}
		objects := "objects"
		if u.count == 1 {
			objects = "object"
		}
		l.report.Warnf(u.at.file, u.at.line, "", "", "%s is not read by schedtui: %d %s skipped", what, u.count, objects)
	}
	l.report.Sort()
	return l.cluster, l.report
}

// checkNodeNames warns about pods bound to nodes the snapshot lacks: the
// scheduler counts them against a node it cannot see.
func (l *Loader) checkNodeNames() {
	nodes := make(map[string]bool, len(l.cluster.Nodes))
	for _, n := range l.cluster.Nodes {
		nodes[n.Name] = true
	}
	for _, p := range l.cluster.Pods {
		if p.Spec.NodeName != "" && !nodes[p.Spec.NodeName] {
			at := l.originOf(p)
			restore := l.reportingAt(at)
			l.report.Warnf(at.file, at.line, describe("Pod", p.Namespace, p.Name), "spec.nodeName",
				"bound to node %q, which is not in the snapshot", p.Spec.NodeName)
			restore()
		}
	}
}

// warnDropped says which fields of a new object were dropped for a gate
// that is off, as the API server drops them (apiserver.DropDisabledFields):
// the file held them, but they are not simulated.
func (l *Loader) warnDropped(file string, line int, desc, kind string, dropped []apiserver.DroppedField) {
	for _, f := range dropped {
		l.report.Warnf(file, line, desc, f.Path, "dropped, as the API server drops it from a new %s with feature gate %s off (enable the gate to keep it)", kind, f.Gate)
	}
}
