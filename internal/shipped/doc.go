// Package shipped holds the cross-checks of the networks shipped in
// networks/ and generated into generated/: generated code against the
// interpreted symbolic system and against finite differences. It has no
// code of its own.
package shipped
