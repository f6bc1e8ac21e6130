package snapshot

import (
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/schedtui/schedtui/snapshot/apiserver"
)

// Checking objects where they are received. A live source's informers
// hold every object they list, and a cluster loaded from a copy of each
// held them twice (3 GiB of heap at 500,000 pods). An AheadChecker does the
// loader's first step (the namespace, defaults, the API server's
// create-time changes, validation, and, for a valid pod or node, sharing
// its parts with those checked before) on each object as the informer
// receives it, before anything else holds it; the loader then adds that
// very object (AddChecked) without checking or copying it again, so the
// informer and the cluster hold one object, already small.

// AheadChecker is a loader's first step on objects, run ahead of adding
// them by whoever receives them first; safe for concurrent use.
type AheadChecker struct {
	opts  apiserver.ValidationOptions
	share *sharedParts

	mu sync.Mutex
	// checked is what Check found, by object: checkedClean when nothing
	// (the common case: one value for all), leftAlone for an object the
	// loader must add itself.
	checked map[runtime.Object]*checkedObject
}

// checkedClean and leftAlone are AheadChecker.checked's values that are
// not a finding.
var checkedClean, leftAlone = &checkedObject{}, &checkedObject{}

// CheckAhead returns the loader's AheadChecker: objects it checks are
// added with AddChecked. Set the loader's options (ValidateUnder) first.
func (l *Loader) CheckAhead() *AheadChecker {
	return &AheadChecker{opts: l.validation, share: l.share, checked: map[runtime.Object]*checkedObject{}}
}

// Check does the loader's first step on obj, in place: call it before
// anything else reads the object (an informer's transform). Checking an
// object again does nothing: an informer's watch list transforms each
// object twice, as it arrives and as the list is stored.
func (a *AheadChecker) Check(obj runtime.Object) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return
	}
	a.mu.Lock()
	_, done := a.checked[obj]
	a.mu.Unlock()
	if done {
		return
	}
	found := leftAlone
	if ki := kindsByType[reflect.TypeOf(obj)]; ki != nil {
		// Typed first, as AddObject types what it adds.
		obj.GetObjectKind().SetGroupVersionKind(ki.gv.WithKind(ki.kind))
		if chk := checkAhead(ki, obj, a.opts, a.share, nil); chk != nil {
			found = chk
			if chk.clearedNamespace == "" && len(chk.errs) == 0 && len(chk.dropped) == 0 {
				found = checkedClean
			}
		}
	}
	a.mu.Lock()
	a.checked[obj] = found
	a.mu.Unlock()
}

// AddChecked adds obj as AddObject adds an object, reporting what a's
// Check found, without checking it again or copying it: the loader
// changes it no further before Finish (whose admission completes objects
// as it does any snapshot's), but for the UID it derives for an object
// without one. An object Check did not check or left alone (one whose
// name the loader generates) is copied and added with AddObject.
func (l *Loader) AddChecked(a *AheadChecker, obj runtime.Object, file string, line int) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return
	}
	a.mu.Lock()
	chk := a.checked[obj]
	a.mu.Unlock()
	switch chk {
	case nil, leftAlone:
		l.AddObject(obj.DeepCopyObject(), file, line)
		return
	case checkedClean:
		acc, _ := meta.Accessor(obj) // Check found its metadata
		chk = &checkedObject{acc: acc}
	}
	l.addChecked(kindsByType[reflect.TypeOf(obj)], obj, l.at(file, line), chk, nil)
}

// Objects received once the cluster is loaded. A live source's later
// events (a pod bound, a node's status renewed, a pod added) reach the
// engine as the informer holds them, not as a copy, so that a session in
// which every object changes holds each once, as the initial sync leaves
// it. A ChangePreparer, the informers' transform after the sync, does to
// each what the sync's check did that applies to an object an API server
// stored: its kind set, its namespace normalized, the defaults (the
// server's objects have them, but for fields newer than the server), and,
// in place of sharing through the load's table (gone with the load), the
// parts it did not change shared with the object it replaces (a pod's
// containers, volumes and labels, a node's images and capacity): a
// changed object costs what changed in it. It remembers nothing per
// object. Validation stays the API server's: a change is applied as
// received.

// ChangePreparer prepares objects received once the cluster is loaded;
// safe for concurrent use.
type ChangePreparer struct {
	opts apiserver.ValidationOptions
}

// Changes returns the preparer of the objects received after the ones a
// checks (under the same options).
func (a *AheadChecker) Changes() *ChangePreparer { return &ChangePreparer{opts: a.opts} }

// Prepare readies obj, in place, before anything else reads it (an
// informer's transform); previous, when not nil, is the object it
// replaces, which is only read. Preparing an object again changes
// nothing.
func (p *ChangePreparer) Prepare(obj, previous runtime.Object) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return
	}
	ki := kindsByType[reflect.TypeOf(obj)]
	if ki == nil {
		return
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(ki.gv.WithKind(ki.kind))
	normalizeNamespace(ki, acc)
	apiserver.DefaultUnder(obj, p.opts)
	if previous != nil && previous != obj && reflect.TypeOf(previous) == reflect.TypeOf(obj) && !reflect.ValueOf(previous).IsNil() {
		keepUnchanged(reflect.ValueOf(obj).Elem(), reflect.ValueOf(previous).Elem())
	}
}

// keepUnchanged makes each field of cur that refers to memory (a
// pointer, a slice, a map, a string) and equals prev's
// (reflect.DeepEqual, nil and empty told apart) share prev's, and does
// the same within struct fields; a shared slice gets no spare capacity,
// so that an append makes a new one rather than writing into prev's.
// prev is only read.
func keepUnchanged(cur, prev reflect.Value) {
	for i := range cur.NumField() {
		f, pf := cur.Field(i), prev.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			if f.String() == pf.String() {
				f.Set(pf)
			}
		case reflect.Pointer, reflect.Map, reflect.Interface:
			if reflect.DeepEqual(f.Interface(), pf.Interface()) {
				f.Set(pf)
			}
		case reflect.Slice:
			if reflect.DeepEqual(f.Interface(), pf.Interface()) {
				if !pf.IsNil() {
					pf = pf.Slice3(0, pf.Len(), pf.Len())
				}
				f.Set(pf)
			}
		case reflect.Struct:
			keepUnchanged(f, pf)
		}
	}
}
