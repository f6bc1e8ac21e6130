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
