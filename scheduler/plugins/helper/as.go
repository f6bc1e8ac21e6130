package helper

import "fmt"

// As converts a queueing hint's old and new objects to T, failing on a
// wrong type as upstream's util.As does; a nil object stays T's zero value.
func As[T any](oldObj, newObj any) (T, T, error) {
	var oldT, newT T
	var ok bool
	if newObj != nil {
		if newT, ok = newObj.(T); !ok {
			return oldT, newT, fmt.Errorf("expected %T, but got %T", newT, newObj)
		}
	}
	if oldObj != nil {
		if oldT, ok = oldObj.(T); !ok {
			return oldT, newT, fmt.Errorf("expected %T, but got %T", oldT, oldObj)
		}
	}
	return oldT, newT, nil
}
