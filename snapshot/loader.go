package snapshot

import (
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/schedtui/schedtui/internal/docread"
	"github.com/schedtui/schedtui/scheduler/features"
	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// LoadFile reads a snapshot: a file of YAML (one or more documents) or
// JSON (one or more concatenated objects), either possibly
// gzip-compressed, holding objects or Lists of objects, or a
// kube-scheduler-simulator export; or a directory of such files or a
// `kubectl cluster-info dump --output-directory` tree (see Open, which also
// returns the scheduler configuration a snapshot may carry). The returned
// error (a *ParseError) means the snapshot could not be read or parsed at
// all; problems with individual objects are in the Report, and those
// objects are left out.
func LoadFile(path string) (*Cluster, *docread.Report, error) {
	o, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	return o.Cluster, o.Report, nil
}

// Load is LoadFile for data already in memory; name is used in problems.
func Load(name string, data []byte) (*Cluster, *docread.Report, error) {
	l := NewLoader()
	if err := l.LoadData(name, data); err != nil {
		return nil, nil, err
	}
	c, r := l.Finish()
	return c, r, nil
}

// Loader accumulates objects from any number of sources (files, a
// directory, a live cluster) into one Cluster. Objects are decoded,
// defaulted, validated and de-duplicated as they are added; the steps that
// need the whole picture (priority admission, the built-in priority
// classes, default storage classes) run in Finish.
type Loader struct {
	cluster *Cluster
	report  *docread.Report

	names     map[objKey]origin
	uids      map[types.UID]uidOwner
	origins   map[runtime.Object]origin
	generated map[runtime.Object]bool
	defaultPC *schedulingv1.PriorityClass // first accepted globalDefault class

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
	// validation is the API server's gates for validating objects (see
	// ValidateUnder).
	validation apiserver.ValidationOptions
}

type origin struct {
	file string
	line int
}

func (o origin) String() string {
	if o.file == "" {
		return "built-in"
	}
	if o.line > 0 {
		return o.file + ":" + strconv.Itoa(o.line)
	}
	return o.file
}

type objKey struct{ kind, namespace, name string }

// uidOwner is the object that took a UID first, and where: described only
// when another one claims the UID (describing every object ahead was 0.1
// GB of strings at 300,000 pods).
type uidOwner struct {
	key objKey
	at  origin
}

func (o uidOwner) String() string {
	return describe(o.key.kind, o.key.namespace, o.key.name) + " at " + o.at.String()
}

type unknownKind struct {
	kind, apiVersion string
	at               origin
	count            int
}

// maxListDepth bounds Lists nested inside Lists.
const maxListDepth = 4

// NewLoader returns an empty Loader.
func NewLoader() *Loader {
	return &Loader{
		cluster:    &Cluster{},
		report:     &docread.Report{},
		names:      map[objKey]origin{},
		uids:       map[types.UID]uidOwner{},
		origins:    map[runtime.Object]origin{},
		generated:  map[runtime.Object]bool{},
		unknownIdx: map[string]*unknownKind{},
	}
}

// LoadFile reads one file into the loader. On error nothing from the file
// is added.
func (l *Loader) LoadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return &docread.ParseError{File: path, Msg: "cannot read file: " + err.Error(), Err: err}
	}
	l.meter.startFile(int64(len(data)))
	defer l.meter.endFile()
	return l.LoadData(path, data)
}

// LoadData parses data (see LoadFile) and adds its objects. On error
// nothing from data is added.
func (l *Loader) LoadData(name string, data []byte) error {
	if docread.IsGzip(data) {
		plain, err := docread.Gunzip(data)
		if err != nil {
			return &docread.ParseError{File: name, Msg: err.Error(), Err: err}
		}
		data = plain
	}
	if IsProtobuf(data) {
		return l.loadProtobuf(name, data)
	}
	converted, added := l.meter.yamlConversion()
	docs, err := docread.ReadDocumentsReporting(name, data, converted)
	if err != nil {
		return err
	}
	added()
	if h, line, ok := headerFromComment(data); ok {
		l.addHeader(name, line, h)
	}
	if len(docs) == 0 {
		l.report.Warnf(name, 0, "", "", "no objects found")
	}
	l.meter.documents(docs)
	for _, d := range docs {
		l.meter.document(len(d.JSON))
		l.AddDocument(d)
		l.meter.documentDone()
	}
	return nil
}

// AddDocument decodes one document (an object or a List) and adds its
// objects.
func (l *Loader) AddDocument(d docread.Document) {
	for _, w := range d.Warnings {
		l.report.Warnf(d.File, w.Line, "", "", "%s", w.Message)
	}
	if d.Err != nil {
		l.report.Errorf(d.File, d.Line, "", "", "%v", d.Err)
		return
	}
	members := d.Members()
	ok := members != nil
	if !ok {
		members, ok = docread.ScanMembers(d.JSON, true)
	}
	if !ok {
		// Not a JSON object the scanner takes: the encoding/json path
		// reports it (or reads a document nested very deep).
		if top, ok := simulatorExport(d.JSON); ok {
			l.addSimulatorExport(d, top)
			return
		}
		if h, ok := listHeader(d.JSON); ok {
			l.addHeader(d.File, d.Line, h)
		}
		l.addDoc(d.File, d.Line, d.JSON, d.ItemLines, 0)
		return
	}
	if !hasMember(members, "apiVersion") && !hasMember(members, "kind") {
		if top, ok := simulatorExport(d.JSON); ok {
			l.addSimulatorExport(d, top)
			return
		}
	}
	if sub := listHeaderInput(d.JSON, members); sub != nil {
		if h, ok := listHeader(sub); ok {
			l.addHeader(d.File, d.Line, h)
		}
	}
	h := docread.HeaderFromMembers(d.JSON, members)
	itemLines := func(*docread.ObjectHeader) []int {
		if d.ItemLines == nil {
			return nil
		}
		return d.ItemLines()
	}
	if _, ok := d.LinesAt(nil); ok {
		// Count lines from the document's own position instead.
		itemLines = func(h *docread.ObjectHeader) []int {
			lines, _ := d.LinesAt(h.ItemOffs)
			return lines
		}
	}
	l.addParsed(d.File, d.Line, d.JSON, h, itemLines, 0)
}

func hasMember(members []docread.Member, key string) bool {
	for _, m := range members {
		if m.Key == key {
			return true
		}
	}
	return false
}

// listHeaderInput returns what listHeader needs to see of a document to
// answer as it would for the whole document, or nil when it would find no
// header. listHeader decodes with encoding/json into a struct with kind
// and metadata, which matches keys case-insensitively and ignores the
// others: only the members whose key may match are kept (not the items).
func listHeaderInput(data []byte, members []docread.Member) []byte {
	var kept []docread.Member
	isList := false
	for _, m := range members {
		ascii := docread.IsASCII([]byte(m.Key))
		if ascii && !strings.EqualFold(m.Key, "kind") && !strings.EqualFold(m.Key, "metadata") {
			continue
		}
		if v := data[m.Value.Start:m.Value.End]; !ascii || strings.EqualFold(m.Key, "kind") && string(v) != "null" {
			// The last value of a kind-like key decides whether this is a
			// List (null leaves the value alone); non-ASCII keys may fold
			// to "kind".
			isList = !ascii || docread.StringValue(v) == "List"
		}
		kept = append(kept, m)
	}
	if !isList {
		return nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range kept {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(data[m.Value.Start:m.Value.End])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// addDoc adds the objects of one document: an object or a List. itemLines,
// if not nil, returns the lines of a List's items.
func (l *Loader) addDoc(file string, line int, data []byte, itemLines func() []int, depth int) {
	h, err := docread.ReadHeader(data)
	if err != nil {
		l.report.Errorf(file, line, "", "", "%v", err)
		return
	}
	var lines func(*docread.ObjectHeader) []int
	if itemLines != nil {
		lines = func(*docread.ObjectHeader) []int { return itemLines() }
	}
	l.addParsed(file, line, data, h, lines, depth)
}

// addParsed is addDoc once the header is read; itemLines, if not nil,
// returns the lines of a List's items.
func (l *Loader) addParsed(file string, line int, data []byte, h docread.ObjectHeader, itemLines func(*docread.ObjectHeader) []int, depth int) {
	if !h.IsList() {
		l.addEncoded(file, line, data, h)
		return
	}
	if depth >= maxListDepth {
		l.report.Errorf(file, line, h.Kind, "items", "Lists nested more than %d deep are not supported", maxListDepth)
		return
	}
	if h.ItemsInvalid {
		l.report.Errorf(file, line, h.Kind, "items", "must be an array of objects")
		return
	}
	var lines []int
	if itemLines != nil && len(h.Items) > 0 {
		if ls := itemLines(&h); len(ls) == len(h.Items) {
			lines = ls
		}
	}
	itemKind, itemAPIVersion := "", ""
	if h.Kind != "List" {
		itemKind, itemAPIVersion = strings.TrimSuffix(h.Kind, "List"), h.APIVersion
	}
	l.addItems(file, line, lines, h.Items, h.ItemMembers, itemAPIVersion, itemKind, depth+1)
}

// parallelMinItems is the size from which a List's items are decoded by
// several goroutines, in chunks of itemChunk (a variable for the tests).
var parallelMinItems = 64

const itemChunk = 32

// itemWork is an item of a List read and decoded ahead of adding it.
type itemWork struct {
	data []byte
	h    docread.ObjectHeader
	err  error
	dec  *decoded // nil when the item is not decoded ahead
}

// prepareItem does for one List item what needs nothing of the loader:
// filling in a typed List's apiVersion and kind, reading the header and
// decoding an object of a supported kind. members, if not nil, are the
// item's members as the List's scan recorded them (without arrays).
func prepareItem(item []byte, members []docread.Member, apiVersion, kind string, opts apiserver.ValidationOptions) itemWork {
	if kind != "" {
		item = withTypeMeta(item, apiVersion, kind)
	}
	w := itemWork{data: item}
	if members != nil && kind == "" && !hasMember(members, "items") {
		w.h = docread.HeaderFromMembers(item, members)
	} else {
		w.h, w.err = docread.ReadHeader(item)
	}
	if w.err != nil || w.h.IsList() {
		return w
	}
	ki := supportedKinds[w.h.Kind]
	if ki == nil || w.h.APIVersion != ki.gv.String() {
		return w
	}
	obj, warnings, errs := decodeObjectChecked(ki, item, w.h.TypeMetaExact)
	w.dec = &decoded{obj: obj, warnings: warnings, errs: errs}
	if obj != nil {
		w.dec.checked = checkAhead(ki, obj, opts)
	}
	return w
}

// addItem adds a prepared List item at depth.
func (l *Loader) addItem(file string, line int, w *itemWork, depth int) {
	switch {
	case w.err != nil:
		l.report.Errorf(file, line, "", "", "%v", w.err)
	case w.h.IsList():
		l.addParsed(file, line, w.data, w.h, nil, depth)
	default:
		l.addDecoded(file, line, w.data, w.h, w.dec)
	}
}

// addItems adds the items of a List (at depth), in order; lines, when not
// nil, are their lines, else they are reported at the List's line.
// apiVersion and kind, when kind is not empty, are those of a typed List's
// items. Reading and decoding the items, which needs nothing of the
// loader, is done ahead by GOMAXPROCS goroutines; everything else happens
// here, item after item, so that objects and problems come out exactly as
// if each item had been read and decoded in turn.
func (l *Loader) addItems(file string, line int, lines []int, items []json.RawMessage, members [][]docread.Member, apiVersion, kind string, depth int) {
	lineOf := func(i int) int {
		if lines != nil {
			return lines[i]
		}
		return line
	}
	membersOf := func(i int) []docread.Member {
		if len(members) == len(items) {
			return members[i]
		}
		return nil
	}
	work := make([]itemWork, len(items))
	inOrder(len(items), func(i int) {
		work[i] = prepareItem(items[i], membersOf(i), apiVersion, kind, l.validation)
	}, func(i int) {
		l.addItem(file, lineOf(i), &work[i], depth)
		work[i] = itemWork{} // the loader keeps what it needs
	}, func(done int) { l.itemsAdded(depth, done, len(items)) })
}

// inOrder calls prepare(i) and then add(i) for every i below n, add in
// the order of i on the calling goroutine. From parallelMinItems on,
// prepare runs ahead on GOMAXPROCS goroutines, in chunks of itemChunk;
// prepare(i) must touch nothing but item i. added, when not nil, hears
// how many have been added, after each item or chunk.
func inOrder(n int, prepare, add func(i int), added func(done int)) {
	workers := goruntime.GOMAXPROCS(0)
	if workers < 2 || n < parallelMinItems {
		for i := range n {
			prepare(i)
			add(i)
			if added != nil {
				added(i + 1)
			}
		}
		return
	}
	chunks := (n + itemChunk - 1) / itemChunk
	done := make([]chan struct{}, chunks)
	for c := range done {
		done[c] = make(chan struct{})
	}
	var next atomic.Int64
	for range workers {
		go func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				for i := c * itemChunk; i < min(n, (c+1)*itemChunk); i++ {
					prepare(i)
				}
				close(done[c])
			}
		}()
	}
	for c := range chunks {
		<-done[c]
		for i := c * itemChunk; i < min(n, (c+1)*itemChunk); i++ {
			add(i)
		}
		if added != nil {
			added(min(n, (c+1)*itemChunk))
		}
	}
}

// itemsAdded reports done of n items of a List at depth added: those of a
// document's own List (depth 1) measure how far the document is.
func (l *Loader) itemsAdded(depth, done, n int) {
	if depth == 1 {
		l.meter.within(done, n)
	}
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

// addEncoded decodes one object of a supported kind.
func (l *Loader) addEncoded(file string, line int, data []byte, h docread.ObjectHeader) {
	l.addDecoded(file, line, data, h, nil)
}

// decoded is the outcome of decodeObject for an object decoded ahead.
type decoded struct {
	obj            runtime.Object
	warnings, errs []docread.FieldIssue
	checked        *checkedObject // nil when not checked ahead
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
		l.noteUnknownKind(h.Kind, h.APIVersion, origin{file, line})
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
	if dec != nil {
		obj, warnings, errs, chk = dec.obj, dec.warnings, dec.errs, dec.checked
	} else {
		obj, warnings, errs = decodeObjectChecked(ki, data, h.TypeMetaExact)
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
	l.addChecked(ki, obj, origin{file, line}, chk)
}

var kindsByType = map[reflect.Type]*kindInfo{}

func init() {
	for _, ki := range supportedKinds {
		kindsByType[reflect.TypeOf(ki.newObj())] = ki
	}
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
		l.noteUnknownKind(kind, gvk.GroupVersion().String(), origin{file, line})
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(ki.gv.WithKind(ki.kind))
	l.addTyped(ki, obj, origin{file, line})
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

// checkedObject is what adding an object works out from the object
// alone: its metadata, the namespace it had if it is cluster-scoped (now
// cleared), and its validation errors once defaulted. checkObject computes
// it, on the goroutines that decode a List's items ahead when it can.
type checkedObject struct {
	acc              metav1.Object
	clearedNamespace string
	errs             field.ErrorList
}

// checkAhead is checkObject for an object decoded ahead of adding it, or
// nil when the object needs the loader first: one without metadata, or
// whose name the loader generates (metadata.generateName).
func checkAhead(ki *kindInfo, obj runtime.Object, opts apiserver.ValidationOptions) *checkedObject {
	acc, err := meta.Accessor(obj)
	if err != nil || acc.GetName() == "" && acc.GetGenerateName() != "" {
		return nil
	}
	return checkObject(ki, obj, acc, opts)
}

// checkObject normalizes the namespace, defaults, prepares a pod as the
// API server creates it, and validates. It touches nothing but obj.
func checkObject(ki *kindInfo, obj runtime.Object, acc metav1.Object, opts apiserver.ValidationOptions) *checkedObject {
	c := &checkedObject{acc: acc, clearedNamespace: normalizeNamespace(ki, acc)}
	c.errs = defaultAndValidate(ki, obj, acc, opts)
	return c
}

// normalizeNamespace does what the API server does with an object's
// namespace: it takes it from the request (kubectl: the context's
// namespace, "default") and clears it on cluster-scoped kinds. It returns
// the namespace it cleared.
func normalizeNamespace(ki *kindInfo, acc metav1.Object) (cleared string) {
	if ki.namespaced {
		if acc.GetNamespace() == "" {
			acc.SetNamespace(metav1.NamespaceDefault)
		}
	} else if acc.GetNamespace() != "" {
		cleared = acc.GetNamespace()
		acc.SetNamespace("")
	}
	return cleared
}

// defaultAndValidate defaults obj, prepares a pod as the API server
// creates it, and returns the validation errors under opts.
func defaultAndValidate(ki *kindInfo, obj runtime.Object, acc metav1.Object, opts apiserver.ValidationOptions) field.ErrorList {
	apiserver.Default(obj)
	if pod, ok := obj.(*v1.Pod); ok && !apiserver.IsStored(&pod.ObjectMeta) {
		apiserver.PrepareForCreate(pod)
	}
	errs := apiserver.ValidateObjectMeta(acc, ki.namespaced, ki.nameFn)
	return append(errs, apiserver.Validate(obj, opts)...)
}

// ValidateUnder makes the loader validate the objects it adds as an API
// server with the gates gates does (the v1.37 defaults until then): with
// TaintTolerationComparisonOperators, tolerations may use Lt and Gt. An
// object read back from an API server keeps what a gate allowed it
// whatever the gates (see apiserver.Validate). Call it before adding.
func (l *Loader) ValidateUnder(gates features.Features) {
	l.validation = apiserver.ValidationOptions{AllowTaintTolerationComparisonOperators: gates.EnableTaintTolerationComparisonOperators}
}

// addTyped normalizes, defaults, validates and stores one object.
func (l *Loader) addTyped(ki *kindInfo, obj runtime.Object, at origin) {
	l.addChecked(ki, obj, at, nil)
}

// addChecked is addTyped; chk, when not nil, is checkObject's result,
// computed ahead.
func (l *Loader) addChecked(ki *kindInfo, obj runtime.Object, at origin, chk *checkedObject) {
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
		chk = &checkedObject{acc: acc, errs: defaultAndValidate(ki, obj, acc, l.validation)}
	} else {
		l.warnClearedNamespace(ki, chk.acc, chk.clearedNamespace, at)
	}
	acc := chk.acc
	desc := describe(ki.kind, acc.GetNamespace(), acc.GetName())
	if len(chk.errs) > 0 {
		for _, e := range docread.IssuesFromFieldErrors(chk.errs) {
			l.report.Errorf(at.file, at.line, desc, e.Field, "%s", e.Message)
		}
		return
	}
	if pc, ok := obj.(*schedulingv1.PriorityClass); ok && pc.GlobalDefault && l.defaultPC != nil {
		err := apierrors.NewForbidden(schema.GroupResource{Group: schedulingv1.GroupName, Resource: "priorityclasses"}, pc.Name,
			fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", l.defaultPC.Name))
		l.report.Errorf(at.file, at.line, desc, "globalDefault", "%s", err.Error())
		return
	}

	key := objKey{ki.kind, acc.GetNamespace(), acc.GetName()}
	if prev, dup := l.names[key]; dup {
		err := apierrors.NewAlreadyExists(schema.GroupResource{Group: ki.gv.Group, Resource: resourceName(ki.kind)}, acc.GetName())
		l.report.Errorf(at.file, at.line, desc, "metadata.name", "%s (first defined at %s)", err.Error(), prev)
		return
	}
	if acc.GetUID() == "" {
		acc.SetUID(deriveUID(ki.kind, acc.GetNamespace(), acc.GetName()))
	}
	if prev, dup := l.uids[acc.GetUID()]; dup {
		fe := field.Duplicate(field.NewPath("metadata", "uid"), string(acc.GetUID()))
		l.report.Errorf(at.file, at.line, desc, fe.Field, "%s (already used by %s)", fe.ErrorBody(), prev)
		return
	}
	l.names[key] = at
	l.uids[acc.GetUID()] = uidOwner{key, at}
	l.origins[obj] = at
	l.store(obj)
	if pc, ok := obj.(*schedulingv1.PriorityClass); ok && pc.GlobalDefault {
		l.defaultPC = pc
	}
}

// warnClearedNamespace reports the namespace normalizeNamespace cleared,
// if any.
func (l *Loader) warnClearedNamespace(ki *kindInfo, acc metav1.Object, cleared string, at origin) {
	if cleared != "" {
		l.report.Warnf(at.file, at.line, describe(ki.kind, cleared, acc.GetName()), "metadata.namespace",
			"%s is cluster-scoped; namespace %q ignored", ki.kind, cleared)
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

func (l *Loader) store(obj runtime.Object) { l.cluster.add(obj) }

// Finish runs the steps that need every object (built-in priority classes,
// pod admission, default storage classes), and returns the cluster and the
// report. Call it once, after the last object was added.
func (l *Loader) Finish() (*Cluster, *docread.Report) {
	if l.finished {
		return l.cluster, l.report
	}
	l.finished = true
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
			at := l.origins[p]
			l.report.Warnf(at.file, at.line, describe("Pod", p.Namespace, p.Name), "spec.nodeName",
				"bound to node %q, which is not in the snapshot", p.Spec.NodeName)
		}
	}
}
