package queue

import "container/heap"

// podHeap is a binary heap of entries that keeps each entry's index, so
// that an entry can be removed or re-sorted in O(log n) as upstream's keyed
// heap does. An entry is in at most one heap at a time.
type podHeap struct {
	items []*entry
	less  func(a, b *entry) bool
}

func (h *podHeap) Len() int           { return len(h.items) }
func (h *podHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *podHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].heapIndex = i
	h.items[j].heapIndex = j
}
func (h *podHeap) Push(x any) {
	e := x.(*entry)
	e.heapIndex = len(h.items)
	h.items = append(h.items, e)
}
func (h *podHeap) Pop() any {
	n := len(h.items)
	e := h.items[n-1]
	h.items[n-1] = nil
	h.items = h.items[:n-1]
	e.heapIndex = -1
	return e
}

func (h *podHeap) add(e *entry) { heap.Push(h, e) }

// fix re-sorts an entry whose ordering fields changed.
func (h *podHeap) fix(e *entry) { heap.Fix(h, e.heapIndex) }

func (h *podHeap) remove(e *entry) { heap.Remove(h, e.heapIndex) }

func (h *podHeap) peek() *entry {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}

func (h *podHeap) pop() *entry {
	if len(h.items) == 0 {
		return nil
	}
	return heap.Pop(h).(*entry)
}

// sorted returns the entries in pop order without disturbing the heap.
func (h *podHeap) sorted() []*entry {
	c := &podHeap{items: make([]*entry, len(h.items)), less: h.less}
	copy(c.items, h.items)
	idx := make([]int, len(h.items))
	for i, e := range h.items {
		idx[i] = e.heapIndex
	}
	out := make([]*entry, 0, len(c.items))
	for c.Len() > 0 {
		out = append(out, heap.Pop(c).(*entry))
	}
	// Popping from the copy rewrote the shared entries' indexes.
	for i, e := range h.items {
		e.heapIndex = idx[i]
	}
	return out
}
