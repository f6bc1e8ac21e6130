package snapshot

import (
	"os"
	"syscall"
)

// mapFileBuffer maps size bytes of anonymous memory, or returns nil.
func mapFileBuffer(size int) *fileBuffer {
	if size <= 0 {
		return nil
	}
	data, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return &fileBuffer{data: data}
}

// mapFile maps the first size bytes of f, a regular file, copy-on-write,
// or returns nil.
func mapFile(f *os.File, size int) *fileBuffer {
	if size <= 0 {
		return nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	// The whole file is read, from its start: the kernel reads what is
	// not in its page cache ahead, in large reads, while the List is
	// walked and its items decoded. Faulted in page by page instead, a
	// 715 MiB protobuf file not in the cache took the walk of its List
	// (one goroutine, before any item is decoded) 1.1 s.
	_ = syscall.Madvise(data, syscall.MADV_WILLNEED)
	return &fileBuffer{data: data, fileBacked: true}
}

// release gives back data[from:to] (page-aligned) to the kernel.
func (b *fileBuffer) release(from, to int) {
	_ = syscall.Madvise(b.data[from:to], syscall.MADV_DONTNEED)
}

// free unmaps the buffer: nothing may use its data after.
func (b *fileBuffer) free() {
	if b != nil && b.data != nil {
		_ = syscall.Munmap(b.data)
		b.data = nil
	}
}
