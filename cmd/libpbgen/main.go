// Command libpbgen is pbgen's C ABI, built as a shared library:
//
//	go build -buildmode=c-shared -o libpbgen.so ./cmd/libpbgen
//
// (make python does it, into python/pbgen/). It is what the Python
// package python/pbgen loads with ctypes, and any C caller can use it
// through the header the build writes beside it. The exported functions
// are thin: they turn C pointers into slices over the caller's memory,
// call package capi, and return errors as strings.
//
// # Conventions
//
// Every function that can fail returns a char*: NULL on success, else a
// message (UTF-8, NUL-terminated) that the caller frees with
// pbgen_free. A panic inside pbgen is recovered and returned as such a
// message ("internal error: ..."), so a bug or a bad input never takes
// the host process down (a failure of the Go runtime itself, such as
// running out of memory, still does).
//
// Problems and models are handles (uintptr_t, from runtime/cgo.Handle):
// opened by pbgen_problem_load, pbgen_problem_compiled, pbgen_model_load
// or pbgen_model_compiled, released by pbgen_close. A closed or unknown
// handle is an error, not a crash; handles are never reused.
//
// Outputs go into caller-owned buffers of the lengths the description
// (pbgen_problem_info, pbgen_model_info: JSON) implies; a NULL output
// pointer means "not requested". pbgen keeps no pointer to caller memory
// after a call returns.
//
// # Threads
//
// Use one handle per thread. Calls on one handle are serialised by a
// lock (a second thread waits), calls on different handles run in
// parallel. Open one problem per thread for parallel evaluations.
package main

func main() {}
