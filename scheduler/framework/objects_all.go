package framework

// All lists every stored object but pods, kind by kind (the kinds others
// refer to first), each kind in the order it was first added.
func (o *ObjectStore) All() []any {
	var out []any
	out = appendAll(out, o.namespaces)
	out = appendAll(out, o.classes)
	out = appendAll(out, o.csiDrivers)
	out = appendAll(out, o.csiNodes)
	out = appendAll(out, o.capacities)
	out = appendAll(out, o.pvs)
	out = appendAll(out, o.pvcs)
	out = appendAll(out, o.attachments)
	out = appendAll(out, o.services)
	out = appendAll(out, o.rcs)
	out = appendAll(out, o.replicaSets)
	out = appendAll(out, o.statefulSets)
	out = appendAll(out, o.pdbs)
	out = appendAll(out, o.devClasses)
	out = appendAll(out, o.slices)
	out = appendAll(out, o.taintRules)
	out = appendAll(out, o.templates)
	out = appendAll(out, o.claims)
	out = appendAll(out, o.workloads)
	out = appendAll(out, o.composites)
	out = appendAll(out, o.podGroups)
	return out
}

func appendAll[T any](out []any, s *store[T]) []any {
	for _, obj := range s.list("", nil) {
		out = append(out, obj)
	}
	return out
}
