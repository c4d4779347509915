package parser

// SBML Level 3 Hierarchical Model Composition (comp, version 1) is
// flattened while reading: the document is read whole as element trees
// (a document declaring comp is held in memory whole, not streamed
// component by component as a core one is; MaxBytes still bounds it),
// every submodel is instantiated from its model definition (in the same
// document, or an external model definition naming a file in the folder
// of the file name given to Read, possibly nested), deletions and
// replacements are applied, and the components of the flat model are
// handed to the same readers as a core model's. Everything after reading
// (lowering, rules, units of species) is as for a core model.
//
// # Naming
//
// As libSBML's flattening converter names them: an element with id x in
// submodel s of the main model becomes s__x; in submodel t of s, s__t__x.
// Local parameters keep their ids (they are scoped by their reaction).
// A replaced element disappears and every reference to it names its
// replacement; an element of the containing model that is replacedBy a
// submodel element disappears and the submodel element takes its id.
// Deleted elements disappear.
//
// A kinetic law's local parameter is no global id: comp reaches it
// through its metaid (metaIdRef, directly or through a port). Replaced
// (replacedElement), its law reads the replacement instead, the other
// laws and the submodel's globals of the same name unchanged; deleted,
// its law reads the submodel's global of that name; replacing an element
// of the containing model (replacedBy), it becomes a global parameter
// under the replaced element's id, which its law and the containing
// model's math both read. A local parameter that replaces a submodel's
// element is refused by name (the submodel would read a name its law
// scopes). Ids are not checked for collisions with
// the prefixed names (a main-model id "s__x" beside submodel s's "x" is
// an error of the model, reported as a duplicate id).
//
// # Conversion factors
//
// A replacedElement with a conversionFactor c: the replaced element's
// value is the replacement's divided by c, so math of the submodel that
// names it reads replacement/c, and a rule or initial assignment that
// sets it sets the replacement to its math times c. A submodel's
// timeConversionFactor f: its time is t/f, so csymbol time reads t/f,
// kinetic laws and rate rules are divided by f, and rateOf is multiplied
// by f. An extentConversionFactor e multiplies its kinetic laws. Factors
// of nested submodels multiply. A submodel's model-wide conversionFactor
// applies to its species that have none.
//
// # Refused
//
// Event delays are multiplied by the time factors (their triggers and
// assignments see the converted time and values like other math).
// Replacing or deleting a whole submodel or a port is refused by name. A
// replacedElement with the deletion attribute replaces what that
// deletion deleted. unitRef replacements and deletions are
// accepted and have no effect (units are not converted). Errors in an
// external file name that file, and errors in flattened components the
// line of the component in the file it came from.

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/symbolic"
)

const compNS = "http://www.sbml.org/sbml/level3/version1/comp/version1"

// maxCompDepth bounds the nesting of submodels and external files: a
// cycle of model references is reported, not followed.
const maxCompDepth = 32

// MaxFlatElements bounds the elements of a flattened comp model. Each
// level of submodels can multiply the model (a definition holding two
// submodels of one holding two of ...), so a small document could
// otherwise flatten to an exponentially large one. A document at the
// MaxBytes limit has a few million elements; the bound allows that much
// again after flattening.
const MaxFlatElements = 1 << 22

// usesComp reports whether the root declares the comp namespace.
func usesComp(root *elem) bool {
	for _, a := range root.attrs {
		if a.Name.Space == compNS || a.Name.Space == "xmlns" && strings.TrimSpace(a.Value) == compNS {
			return true
		}
	}
	return false
}

// cattr reads a comp attribute (comp:name; an unprefixed one is accepted
// too, as on comp elements some tools write them so).
func cattr(e *elem, name string) (string, bool) {
	for _, a := range e.attrs {
		if a.Name.Local == name && a.Name.Space == compNS {
			return strings.TrimSpace(a.Value), true
		}
	}
	for _, a := range e.attrs {
		if a.Name.Local == name && a.Name.Space == "" {
			return strings.TrimSpace(a.Value), true
		}
	}
	return "", false
}

// compDoc is one document's model and model definitions: the scope in
// which modelRef names are looked up.
type compDoc struct {
	file      string
	dir       string
	main      *elem
	defs      map[string]*elem    // modelDefinition by id
	externals map[string]*elem    // externalModelDefinition by id
	loaded    map[string]*compDoc // external files read, by path: shared by the documents of one Read
}

// inst is one instance of a model definition in the flat model.
type inst struct {
	prefix   string
	def      *elem
	doc      *compDoc
	ids      map[string]*elem // local SId -> element
	metaids  map[string]*elem
	ports    map[string]*elem
	subs     map[string]*inst    // submodel instances by submodel id
	tcf, xcf []cref              // time and extent conversion factors, outermost first
	cf       string              // the definition's model-wide conversionFactor (local id)
	deleted  map[string]instElem // what the submodel's deletions with an id deleted, by that id
	locals   map[*elem]bool      // the local parameters of its kinetic laws
}

// cref is an id local to an instance.
type cref struct {
	in *inst
	id string
}

// redirect says that references to a global id name another, divided by
// a conversion factor when cf is set.
type redirect struct {
	to string
	cf *cref
}

type instElem struct {
	in *inst
	e  *elem
}

type flattener struct {
	r        *reader
	redirect map[string]redirect
	removed  map[instElem]bool
	// localRepl maps a replaced local parameter to what its kinetic law
	// reads instead (a global id, divided by a conversion factor); a
	// local parameter is no global id, so redirect cannot say it.
	localRepl map[instElem]redirect
	// promoted maps a local parameter that replaces an element of the
	// containing model (replacedBy) to the global id it takes: the flat
	// model declares it as a global parameter, so that the containing
	// model's math, which named the replaced element, can read it.
	promoted      map[instElem]string
	promotedOrder []instElem
	insts         []*inst // parents before their submodels
	active        map[*elem]bool
	sizes         map[*elem]int    // elements in a definition's tree
	total         int              // elements of all instances so far
	tooBig        bool             // MaxFlatElements was passed (reported)
	origin        map[*elem]string // file each flat component came from
}

// compDocument reads a document that uses comp: the whole document as
// trees, flattened into one model.
func (r *reader) compDocument(s *xmlStream, root *elem, level, version int) *Model {
	for _, a := range root.attrs {
		if a.Name.Local == "required" && a.Name.Space != "" && a.Name.Space != compNS && strings.TrimSpace(a.Value) == "true" {
			r.refuse(root.line, "sbml", "", "required SBML package "+strconv.Quote(pkgName(a.Name.Space)))
		}
	}
	r.noteOptional(root)
	doc := r.readCompDoc(s, root, r.file)
	if doc == nil {
		return nil
	}
	if doc.main == nil {
		if !s.stop {
			r.errorf(root.line, "sbml", "", "no <model>")
		}
		return nil
	}
	f := &flattener{r: r, redirect: make(map[string]redirect), removed: make(map[instElem]bool), active: make(map[*elem]bool),
		localRepl: make(map[instElem]redirect), promoted: make(map[instElem]string),
		sizes: make(map[*elem]int), origin: make(map[*elem]string)}
	if n := f.expandedSize(doc, doc.main, 0, make(map[*elem]float64)); n > MaxFlatElements {
		r.errorf(doc.main.line, "model", idOf(doc.main), "flattened model larger than %d elements (submodels multiply: about %.3g)", MaxFlatElements, n)
		return nil
	}
	top := f.instantiate(doc, doc.main, "", nil, nil, 0)
	if len(r.errs) > 0 || top == nil {
		return nil
	}
	flat := f.render(top)
	m := &Model{File: r.file, Level: level, Version: version, Line: flat.line, B: symbolic.NewBuilder()}
	r.m = m
	m.ID, _ = flat.attr("id")
	m.Name, _ = flat.attr("name")
	if cf, ok := flat.attr("conversionFactor"); ok {
		m.ConversionFactor = strings.TrimSpace(cf)
	}
	r.flatModel(flat, f.origin)
	if len(r.errs) > 0 {
		return m
	}
	r.resolve()
	r.validate()
	return m
}

// readCompDoc reads the rest of a document whose root is root: its
// children whole.
func (r *reader) readCompDoc(s *xmlStream, root *elem, file string) *compDoc {
	s.judge = nil // comp children sit inside core components
	doc := &compDoc{file: file, dir: filepath.Dir(file), defs: make(map[string]*elem),
		externals: make(map[string]*elem), loaded: make(map[string]*compDoc)}
	var kids []*elem
	for k := s.next(); k != nil; k = s.next() {
		if !s.tree(k) {
			break
		}
		kids = append(kids, k)
	}
	s.finish()
	if s.bad {
		return nil
	}
	for _, k := range kids {
		switch {
		case k.space == compNS && k.local == "listOfModelDefinitions":
			for _, d := range k.kids {
				if d.space != compNS || d.local != "modelDefinition" {
					r.errorf(d.line, d.local, "", "unexpected element in <comp:listOfModelDefinitions>")
					continue
				}
				if id, _ := d.attr("id"); id != "" {
					doc.defs[strings.TrimSpace(id)] = d
				} else {
					r.errorf(d.line, "comp:modelDefinition", "", "missing id")
				}
			}
		case k.space == compNS && k.local == "listOfExternalModelDefinitions":
			for _, d := range k.kids {
				if d.space != compNS || d.local != "externalModelDefinition" {
					r.errorf(d.line, d.local, "", "unexpected element in <comp:listOfExternalModelDefinitions>")
					continue
				}
				if id, _ := cattr(d, "id"); id != "" {
					doc.externals[id] = d
				} else {
					r.errorf(d.line, "comp:externalModelDefinition", "", "missing id")
				}
			}
		case isSBMLCore(k.space) && k.local == "model":
			if doc.main != nil {
				r.errorf(k.line, "model", "", "more than one <model>")
			}
			doc.main = k
		case k.space == compNS:
			r.errorf(k.line, "comp:"+k.local, "", "unexpected element in <sbml>")
		case isSBMLCore(k.space):
			r.errorf(k.line, k.local, "", "unexpected element in <sbml>")
		default:
			r.core(k) // refuses other packages, ignores layout and render
		}
	}
	return doc
}

func isSBMLCore(space string) bool {
	_, ok := sbmlNamespaces[space]
	return ok
}

// lookup finds the model definition named ref in doc: a modelDefinition,
// an externalModelDefinition (read from its file, relative to doc's
// folder), or the main model's id.
func (f *flattener) lookup(doc *compDoc, ref string, line int, depth int) (*compDoc, *elem) {
	r := f.r
	if depth > maxCompDepth {
		r.errorf(line, "comp:externalModelDefinition", ref, "model references nested deeper than %d (a cycle of external model definitions?)", maxCompDepth)
		return nil, nil
	}
	if d, ok := doc.defs[ref]; ok {
		return doc, d
	}
	if doc.main != nil {
		if id, _ := doc.main.attr("id"); strings.TrimSpace(id) == ref {
			return doc, doc.main
		}
	}
	x, ok := doc.externals[ref]
	if !ok {
		r.errorf(line, "comp:submodel", "", "model %q is not defined", ref)
		return nil, nil
	}
	src, _ := cattr(x, "source")
	src = strings.TrimPrefix(src, "file:")
	// Only files beside the document (or below its folder) are read: a
	// model must not make the reader open arbitrary paths.
	if src == "" || strings.Contains(src, "://") || filepath.IsAbs(src) || strings.HasPrefix(src, "/") ||
		!filepath.IsLocal(filepath.FromSlash(src)) {
		r.errorf(x.line, "comp:externalModelDefinition", ref, "source %q is not a file in the document's folder", src)
		return nil, nil
	}
	path := filepath.Join(doc.dir, filepath.FromSlash(src))
	ext, ok := doc.loaded[path]
	if !ok {
		if depth >= maxCompDepth {
			r.errorf(x.line, "comp:externalModelDefinition", ref, "external model definitions nested deeper than %d", maxCompDepth)
			return nil, nil
		}
		ext = r.loadExternal(path, x, ref)
		doc.loaded[path] = ext
		if ext == nil {
			return nil, nil
		}
		ext.loaded = doc.loaded
	}
	if ext == nil {
		return nil, nil
	}
	mref, has := cattr(x, "modelRef")
	if !has {
		if ext.main == nil {
			r.errorf(x.line, "comp:externalModelDefinition", ref, "%s has no <model>", src)
			return nil, nil
		}
		return ext, ext.main
	}
	return f.lookup(ext, mref, x.line, depth+1)
}

// loadExternal reads an external document.
func (r *reader) loadExternal(path string, x *elem, ref string) *compDoc {
	fh, err := os.Open(path)
	if err != nil {
		r.errorf(x.line, "comp:externalModelDefinition", ref, "%v", err)
		return nil
	}
	defer fh.Close()
	s := newStream(fh, path, &r.errs)
	root := s.root()
	if root == nil {
		return nil
	}
	if root.local != "sbml" || !isSBMLCore(root.space) {
		r.errs.add(path, root.line, root.local, "", "root element is not an SBML <sbml>")
		return nil
	}
	saved := r.file
	r.file = path
	doc := r.readCompDoc(s, root, path)
	r.file = saved
	return doc
}

// instantiate makes the instance of definition def with the given prefix,
// with its submodels, deletions and replacements.
func (f *flattener) instantiate(doc *compDoc, def *elem, prefix string, tcf, xcf []cref, depth int) *inst {
	r := f.r
	if f.active[def] || depth > maxCompDepth {
		id, _ := def.attr("id")
		r.errorf(def.line, "comp:modelDefinition", id, "model instantiates itself through its submodels")
		return nil
	}
	if f.tooBig {
		return nil
	}
	if f.sizes[def] == 0 {
		f.sizes[def] = treeSize(def)
	}
	if f.total += f.sizes[def]; f.total > MaxFlatElements {
		f.tooBig = true
		id, _ := def.attr("id")
		r.errorf(def.line, "comp:modelDefinition", id, "flattened model larger than %d elements (submodels multiply)", MaxFlatElements)
		return nil
	}
	f.active[def] = true
	defer delete(f.active, def)
	in := &inst{prefix: prefix, def: def, doc: doc, ids: make(map[string]*elem),
		metaids: make(map[string]*elem), ports: make(map[string]*elem), subs: make(map[string]*inst),
		locals: make(map[*elem]bool)}
	in.tcf, in.xcf = tcf, xcf
	if cf, ok := def.attr("conversionFactor"); ok {
		in.cf = strings.TrimSpace(cf)
	}
	f.insts = append(f.insts, in)
	f.index(in, def, false)
	var subs []*elem
	for _, l := range def.kids {
		switch {
		case l.space == compNS && l.local == "listOfPorts":
			for _, p := range l.kids {
				if id, _ := cattr(p, "id"); id != "" && p.local == "port" {
					in.ports[id] = p
				}
			}
		case l.space == compNS && l.local == "listOfSubmodels":
			subs = append(subs, l.kids...)
		case l.space == compNS:
			r.errorf(l.line, "comp:"+l.local, "", "unexpected element in a model")
		}
	}
	for _, s := range subs {
		if s.space != compNS || s.local != "submodel" {
			r.errorf(s.line, s.local, "", "unexpected element in <comp:listOfSubmodels>")
			continue
		}
		id, _ := cattr(s, "id")
		ref, _ := cattr(s, "modelRef")
		if id == "" || ref == "" {
			r.errorf(s.line, "comp:submodel", id, "a submodel needs an id and a modelRef")
			continue
		}
		in.ids[id] = s
		in.subs[id] = nil // known, in case it cannot be made
		sdoc, sdef := f.lookup(doc, ref, s.line, depth)
		if sdef == nil {
			continue
		}
		tcf := append([]cref(nil), in.tcf...)
		if c, ok := cattr(s, "timeConversionFactor"); ok {
			tcf = append(tcf, cref{in, c})
		}
		xcf := append([]cref(nil), in.xcf...)
		if c, ok := cattr(s, "extentConversionFactor"); ok {
			xcf = append(xcf, cref{in, c})
		}
		child := f.instantiate(sdoc, sdef, prefix+id+"__", tcf, xcf, depth+1)
		if child == nil {
			continue
		}
		in.subs[id] = child
		for _, l := range s.kids {
			if l.space != compNS || l.local != "listOfDeletions" {
				continue
			}
			for _, d := range l.kids {
				if d.local != "deletion" {
					continue
				}
				ti, te := f.resolve(child, d)
				f.remove(ti, te, d, "deletion")
				if did, ok := cattr(d, "id"); ok && te != nil {
					if child.deleted == nil {
						child.deleted = make(map[string]instElem)
					}
					child.deleted[did] = instElem{ti, te}
				}
			}
		}
	}
	f.replacements(in, def)
	return in
}

// index records the ids and metaids of def's components.
func (f *flattener) index(in *inst, e *elem, local bool) {
	for _, k := range e.kids {
		if k.space == compNS || k.space == mathNS {
			continue
		}
		isLocal := local || k.local == "kineticLaw"
		if id, ok := k.attr("id"); ok && !isLocal {
			in.ids[strings.TrimSpace(id)] = k
		}
		if mid, ok := k.attr("metaid"); ok {
			in.metaids[strings.TrimSpace(mid)] = k
		}
		if local && (k.local == "localParameter" || k.local == "parameter") {
			in.locals[k] = true
		}
		f.index(in, k, isLocal)
	}
}

// resolve follows an SBaseRef (a deletion, replacement, port or nested
// sBaseRef) into instance in: the element it names and the instance
// holding it. te is nil after an error or for a unitRef.
func (f *flattener) resolve(in *inst, ref *elem) (*inst, *elem) {
	r := f.r
	if p, ok := cattr(ref, "portRef"); ok {
		port, found := in.ports[p]
		if !found {
			r.errorf(ref.line, "comp:"+ref.local, p, "port %q does not exist in submodel %q", p, strings.TrimSuffix(in.prefix, "__"))
			return nil, nil
		}
		return f.resolve(in, port)
	}
	var te *elem
	var what string
	if id, ok := cattr(ref, "idRef"); ok {
		te, what = in.ids[id], "id "+strconv.Quote(id)
	} else if mid, ok := cattr(ref, "metaIdRef"); ok {
		te, what = in.metaids[mid], "metaid "+strconv.Quote(mid)
	} else if _, ok := cattr(ref, "unitRef"); ok {
		return nil, nil // units are not converted: nothing to replace
	} else if d, ok := cattr(ref, "deletion"); ok {
		// A replacement of what a deletion deleted: the deleted element,
		// whose references now name the replacement.
		x, found := in.deleted[d]
		if !found {
			r.errorf(ref.line, "comp:"+ref.local, "", "deletion %q does not exist in %s", d, in.name())
			return nil, nil
		}
		return x.in, x.e
	} else {
		r.errorf(ref.line, "comp:"+ref.local, "", "reference names nothing (no portRef, idRef, metaIdRef or unitRef)")
		return nil, nil
	}
	if te == nil {
		r.errorf(ref.line, "comp:"+ref.local, "", "%s does not exist in %s", what, in.name())
		return nil, nil
	}
	for _, k := range ref.kids {
		if k.space == compNS && k.local == "sBaseRef" {
			sub, ok := in.subs[idOf(te)]
			if !ok || te.space != compNS || te.local != "submodel" {
				r.errorf(k.line, "comp:sBaseRef", "", "%s is not a submodel", what)
				return nil, nil
			}
			if sub == nil {
				return nil, nil // it could not be made: reported
			}
			return f.resolve(sub, k)
		}
	}
	return in, te
}

func (in *inst) name() string {
	if in.prefix == "" {
		return "the model"
	}
	return "submodel " + strconv.Quote(strings.TrimSuffix(in.prefix, "__"))
}

func idOf(e *elem) string {
	if e.space == compNS {
		id, _ := cattr(e, "id")
		return id
	}
	id, _ := e.attr("id")
	return strings.TrimSpace(id)
}

// remove deletes te from instance ti.
func (f *flattener) remove(ti *inst, te *elem, ref *elem, what string) {
	if te == nil {
		return
	}
	if te.space == compNS {
		f.r.refuse(ref.line, "comp:"+ref.local, "", "comp "+what+" of a whole submodel or port")
		return
	}
	f.removed[instElem{ti, te}] = true
}

// replacements applies the replacedElement and replacedBy children of
// the components of in.
func (f *flattener) replacements(in *inst, e *elem) {
	r := f.r
	for _, k := range e.kids {
		if k.space == mathNS {
			continue
		}
		if k.space != compNS {
			f.replacements(in, k)
			continue
		}
		switch k.local {
		case "listOfReplacedElements":
			for _, re := range k.kids {
				if re.local != "replacedElement" {
					continue
				}
				sub := f.subOf(in, re)
				if sub == nil {
					continue
				}
				ti, te := f.resolve(sub, re)
				if te == nil || f.localReplacer(in, e, re) {
					continue
				}
				f.remove(ti, te, re, "replacement")
				if idT, idE := idOf(te), idOf(e); idT != "" && idE != "" {
					rd := redirect{to: in.prefix + idE}
					if cf, ok := cattr(re, "conversionFactor"); ok {
						rd.cf = &cref{in, cf}
					}
					if ti.locals[te] {
						// A local parameter reached through its metaid: its
						// kinetic law reads the replacement.
						f.localRepl[instElem{ti, te}] = rd
						continue
					}
					f.redirect[ti.prefix+idT] = rd
				}
			}
		case "replacedBy":
			sub := f.subOf(in, k)
			if sub == nil {
				continue
			}
			ti, te := f.resolve(sub, k)
			if te == nil {
				continue
			}
			if te.space == compNS {
				r.refuse(k.line, "comp:replacedBy", "", "comp replacement by a whole submodel or port")
				continue
			}
			if f.localReplacer(in, e, k) {
				continue
			}
			f.removed[instElem{in, e}] = true
			idT, idE := idOf(te), idOf(e)
			if idT == "" || idE == "" {
				continue
			}
			if ti.locals[te] {
				// The local parameter takes the replaced element's id
				// as a global parameter of the flat model.
				x := instElem{ti, te}
				if _, dup := f.promoted[x]; !dup {
					f.promotedOrder = append(f.promotedOrder, x)
				}
				f.promoted[x] = in.prefix + idE
				f.removed[x] = true
				continue
			}
			f.redirect[ti.prefix+idT] = redirect{to: in.prefix + idE}
		case "listOfPorts", "listOfSubmodels", "listOfDeletions":
		default:
			r.errorf(k.line, "comp:"+k.local, "", "unexpected comp element")
		}
	}
}

// localReplacer refuses, and reports true for, a replacement whose
// replacing element e is a local parameter of in: what the submodel
// names would then be read outside the kinetic law that scopes it.
func (f *flattener) localReplacer(in *inst, e, ref *elem) bool {
	if !in.locals[e] {
		return false
	}
	f.r.refuse(ref.line, "comp:"+ref.local, idOf(e), "comp replacement by a local parameter of a kinetic law")
	return true
}

func (f *flattener) subOf(in *inst, ref *elem) *inst {
	s, _ := cattr(ref, "submodelRef")
	sub, ok := in.subs[s]
	if !ok {
		f.r.errorf(ref.line, "comp:"+ref.local, s, "submodel %q does not exist in %s", s, in.name())
	}
	return sub // nil after an error, reported
}

// canon is the global id that the global id g finally stands for, and
// the conversion factors (global ids) it is divided by.
func (f *flattener) canon(g string) (string, []string) {
	var cfs []string
	for i := 0; i < 4*maxCompDepth; i++ {
		rd, ok := f.redirect[g]
		if !ok {
			break
		}
		g = rd.to
		if rd.cf != nil {
			c, _ := f.canon(rd.cf.in.prefix + rd.cf.id)
			cfs = append(cfs, c)
		}
	}
	return g, cfs
}

// global is the flat id of the id x local to in (unchanged if in does not
// declare it).
func (f *flattener) global(in *inst, x string) (string, []string) {
	if _, ok := in.ids[x]; !ok {
		return x, nil
	}
	return f.canon(in.prefix + x)
}

// listOrder is the order of the lists in the flat model.
var listOrder = []string{"listOfFunctionDefinitions", "listOfCompartments", "listOfSpecies", "listOfParameters",
	"listOfInitialAssignments", "listOfRules", "listOfReactions", "listOfEvents"}

// render builds the flat model: the main model's attributes and the
// components of every instance, parents first.
func (f *flattener) render(top *inst) *elem {
	flat := &elem{space: f.r.ns, local: "model", line: top.def.line}
	for _, a := range top.def.attrs {
		if a.Name.Space == "" {
			if a.Name.Local == "conversionFactor" {
				a.Value, _ = f.global(top, strings.TrimSpace(a.Value))
			}
			flat.attrs = append(flat.attrs, a)
		}
	}
	lists := make(map[string]*elem)
	for _, in := range f.insts {
		for _, l := range in.def.kids {
			if !isSBMLCore(l.space) {
				if l.space != compNS {
					f.r.core(l)
				}
				continue
			}
			switch l.local {
			case "listOfUnitDefinitions", "listOfCompartmentTypes", "listOfSpeciesTypes", "listOfConstraints":
				continue
			}
			dst := lists[l.local]
			if dst == nil {
				dst = &elem{space: f.r.ns, local: l.local, line: l.line}
				lists[l.local] = dst
			}
			for _, c := range l.kids {
				if f.removed[instElem{in, c}] {
					continue
				}
				cp := f.copyElem(in, c, nil)
				f.origin[cp] = in.doc.file
				dst.kids = append(dst.kids, cp)
			}
		}
	}
	f.renderPromoted(lists)
	for _, name := range listOrder {
		if l := lists[name]; l != nil {
			flat.kids = append(flat.kids, l)
			delete(lists, name)
		}
	}
	for _, l := range lists { // unknown lists: reported by flatModel
		flat.kids = append(flat.kids, l)
	}
	return flat
}

// renderPromoted adds to the flat parameters each local parameter that
// replaces an element of its containing model (replacedBy), under the
// global id it took, unless a replacement further up replaced that too.
// A local parameter is constant, and so is the global one it becomes.
func (f *flattener) renderPromoted(lists map[string]*elem) {
	for _, x := range f.promotedOrder {
		g := f.promoted[x]
		if to, _ := f.canon(g); to != g {
			continue
		}
		p := &elem{space: f.r.ns, local: "parameter", line: x.e.line, segs: []string{""}}
		for _, a := range x.e.attrs {
			if a.Name.Space == "" && a.Name.Local != "id" && a.Name.Local != "metaid" && a.Name.Local != "constant" {
				p.attrs = append(p.attrs, a)
			}
		}
		p.attrs = append(p.attrs, xml.Attr{Name: xml.Name{Local: "id"}, Value: g},
			xml.Attr{Name: xml.Name{Local: "constant"}, Value: "true"})
		dst := lists["listOfParameters"]
		if dst == nil {
			dst = &elem{space: f.r.ns, local: "listOfParameters", line: x.e.line}
			lists["listOfParameters"] = dst
		}
		dst.kids = append(dst.kids, p)
		f.origin[p] = x.in.doc.file
	}
}

// scopeNames are the names math resolves in its own scope: bound
// variables and local parameters, which it must not rename (nil), and
// replaced or promoted local parameters, which it reads as a global id
// (to) divided by conversion factors (cfs, global ids).
type scopeNames map[string]*scoped

type scoped struct {
	to  string
	cfs []string
}

// copyElem copies a component of in with its ids and references made
// global, comp children dropped, and the conversion factors applied.
func (f *flattener) copyElem(in *inst, e *elem, bound scopeNames) *elem {
	if e.space == mathNS && e.local == "math" {
		return f.copyMath(in, e, bound, nil)
	}
	c := &elem{space: e.space, local: e.local, line: e.line}
	if isSBMLCore(e.space) {
		c.space = f.r.ns
	}
	var cfs []string
	local := e.local == "localParameter" || e.local == "parameter" && bound != nil
	for _, a := range e.attrs {
		if a.Name.Space == compNS {
			continue
		}
		if a.Name.Space == "" {
			switch a.Name.Local {
			case "id":
				if !local {
					a.Value, _ = f.global(in, strings.TrimSpace(a.Value))
				}
			case "species", "compartment", "conversionFactor":
				a.Value, _ = f.global(in, strings.TrimSpace(a.Value))
			case "variable", "symbol":
				a.Value, cfs = f.global(in, strings.TrimSpace(a.Value))
			}
		}
		c.attrs = append(c.attrs, a)
	}
	if e.local == "species" && in.cf != "" {
		if _, has := e.attr("conversionFactor"); !has {
			g, _ := f.global(in, in.cf)
			c.attrs = append(c.attrs, xml.Attr{Name: xml.Name{Local: "conversionFactor"}, Value: g})
		}
	}
	if e.local == "kineticLaw" {
		bound = f.lawScope(in, e)
	}
	// The factor the element's math is multiplied by: a rule or initial
	// assignment to a replaced element with conversion factors; time
	// conversion of rates; extent conversion of kinetic laws.
	var mul, div []string
	mul = append(mul, cfs...)
	switch e.local {
	case "kineticLaw":
		mul = append(mul, f.factors(in.xcf)...)
		div = append(div, f.factors(in.tcf)...)
	case "rateRule":
		div = append(div, f.factors(in.tcf)...)
	case "delay": // an event's delay, in the submodel's time units
		if isSBMLCore(e.space) {
			mul = append(mul, f.factors(in.tcf)...)
		}
	}
	c.segs = append(c.segs, e.segs...)
	for _, k := range e.kids {
		if k.space == compNS || f.removed[instElem{in, k}] {
			continue
		}
		if k.space == mathNS && k.local == "math" {
			c.kids = append(c.kids, f.copyMath(in, k, bound, &scale{mul, div}))
			continue
		}
		c.kids = append(c.kids, f.copyElem(in, k, bound))
	}
	for len(c.segs) < len(c.kids)+1 {
		c.segs = append(c.segs, "")
	}
	c.segs = c.segs[:len(c.kids)+1]
	return c
}

// lawScope is the scope of kinetic law e of in: its local parameters,
// unless deleted (a deleted one no longer shadows: the name is the
// submodel's global), replaced (the name reads the replacement) or
// promoted to a global parameter (the name reads that).
func (f *flattener) lawScope(in *inst, e *elem) scopeNames {
	bound := make(scopeNames)
	for _, l := range e.kids {
		if l.local != "listOfLocalParameters" && l.local != "listOfParameters" {
			continue
		}
		for _, p := range l.kids {
			id, ok := p.attr("id")
			if !ok {
				continue
			}
			id = strings.TrimSpace(id)
			x := instElem{in, p}
			if rd, ok := f.localRepl[x]; ok {
				to, cfs := f.canon(rd.to)
				if rd.cf != nil {
					c, _ := f.canon(rd.cf.in.prefix + rd.cf.id)
					cfs = append([]string{c}, cfs...)
				}
				bound[id] = &scoped{to: to, cfs: cfs}
				continue
			}
			if g, ok := f.promoted[x]; ok {
				to, cfs := f.canon(g)
				bound[id] = &scoped{to: to, cfs: cfs}
				continue
			}
			if !f.removed[x] {
				bound[id] = nil
			}
		}
	}
	return bound
}

func (f *flattener) factors(rs []cref) []string {
	out := make([]string, 0, len(rs))
	for _, c := range rs {
		g, _ := f.global(c.in, c.id)
		out = append(out, g)
	}
	return out
}

// scale multiplies a math element's expression by the product of mul and
// divides it by that of div.
type scale struct{ mul, div []string }

func (f *flattener) copyMath(in *inst, e *elem, bound scopeNames, sc *scale) *elem {
	m := &elem{space: e.space, local: e.local, attrs: e.attrs, line: e.line, segs: e.segs}
	for _, k := range e.kids {
		if e.local == "lambda" && k.local == "bvar" {
			if bound == nil {
				bound = make(scopeNames)
			} else {
				nb := make(scopeNames, len(bound)+1)
				for n, v := range bound {
					nb[n] = v
				}
				bound = nb
			}
			bound[k.text()] = nil
		}
	}
	for _, k := range e.kids {
		m.kids = append(m.kids, f.mathNode(in, k, bound))
	}
	if sc != nil && e.local == "math" && len(m.kids) == 1 && (len(sc.mul) > 0 || len(sc.div) > 0) {
		x := m.kids[0]
		if len(sc.mul) > 0 {
			x = xApply("times", append([]*elem{x}, ciList(sc.mul, x.line)...)...)
		}
		if len(sc.div) > 0 {
			x = xApply("divide", x, product(sc.div, x.line))
		}
		m.kids = []*elem{x}
		m.segs = []string{"", ""}
	}
	return m
}

func (f *flattener) mathNode(in *inst, e *elem, bound scopeNames) *elem {
	switch {
	case e.local == "ci" && len(e.kids) == 0:
		name := e.text()
		if s, ok := bound[name]; ok {
			return s.read(e)
		}
		g, cfs := f.global(in, name)
		x := xCi(g, e.line)
		if t := in.ids[name]; t != nil && t.local == "reaction" && isSBMLCore(t.space) && g == in.prefix+name {
			// A reaction's rate in the submodel's units: the flat rate
			// times the time factors, divided by the extent factors.
			// A replaced reaction is its replacement's, converted only
			// by the replacement's conversion factor (cases 01182, 01183).
			if len(in.tcf) > 0 {
				x = xApply("times", append([]*elem{x}, ciList(f.factors(in.tcf), e.line)...)...)
			}
			cfs = append(cfs, f.factors(in.xcf)...)
		}
		if len(cfs) > 0 {
			x = xApply("divide", x, product(cfs, e.line))
		}
		return x
	case e.local == "csymbol":
		url, _ := e.attr("definitionURL")
		if strings.TrimSpace(url) == symbolsURL+"time" && len(in.tcf) > 0 {
			return xApply("divide", e, product(f.factors(in.tcf), e.line))
		}
		return e
	case e.local == "apply" && len(e.kids) == 3 && e.kids[0].local == "csymbol" && len(in.tcf) > 0 && isDelay(e.kids[0]):
		// A delay in the submodel's time units: its time runs slower by
		// its time factors, so the delay in model time is tau times them
		// (case 01173).
		x := f.copyMath(in, e, bound, nil)
		x.kids[2] = xApply("times", append([]*elem{x.kids[2]}, ciList(f.factors(in.tcf), e.line)...)...)
		return x
	case e.local == "apply" && len(e.kids) == 2 && e.kids[0].local == "csymbol" && e.kids[1].local == "ci":
		url, _ := e.kids[0].attr("definitionURL")
		if strings.TrimSpace(url) != symbolsURL+"rateOf" {
			break
		}
		// rateOf names its target, never an expression: a replaced
		// target's conversion factors (constants) divide the rate, and
		// the submodel's time runs slower by its time factors.
		name := e.kids[1].text()
		g, cfs := f.global(in, name)
		if s, ok := bound[name]; ok {
			if s == nil {
				return e
			}
			g, cfs = s.to, s.cfs
		}
		x := &elem{space: e.space, local: e.local, attrs: e.attrs, line: e.line,
			kids: []*elem{e.kids[0], xCi(g, e.kids[1].line)}, segs: []string{"", "", ""}}
		if len(in.tcf) > 0 {
			x = xApply("times", append([]*elem{x}, ciList(f.factors(in.tcf), e.line)...)...)
		}
		if len(cfs) > 0 {
			x = xApply("divide", x, product(cfs, e.line))
		}
		return x
	}
	if len(e.kids) == 0 {
		return e
	}
	return f.copyMath(in, e, bound, nil)
}

// read is what the ci e, naming a scoped name, becomes: e itself for a
// bound one, else the global id it reads, divided by its factors.
func (s *scoped) read(e *elem) *elem {
	if s == nil {
		return e
	}
	x := xCi(s.to, e.line)
	if len(s.cfs) == 0 {
		return x
	}
	return xApply("divide", x, product(s.cfs, x.line))
}

// isDelay reports whether the csymbol e is csymbol delay.
func isDelay(e *elem) bool {
	url, _ := e.attr("definitionURL")
	return strings.TrimSpace(url) == symbolsURL+"delay"
}

func xCi(name string, line int) *elem {
	return &elem{space: mathNS, local: "ci", segs: []string{name}, line: line}
}

func xApply(op string, args ...*elem) *elem {
	line := 0
	if len(args) > 0 {
		line = args[0].line
	}
	kids := append([]*elem{{space: mathNS, local: op, segs: []string{""}, line: line}}, args...)
	return &elem{space: mathNS, local: "apply", kids: kids, segs: make([]string, len(kids)+1), line: line}
}

func ciList(ids []string, line int) []*elem {
	out := make([]*elem, len(ids))
	for i, id := range ids {
		out[i] = xCi(id, line)
	}
	return out
}

func product(ids []string, line int) *elem {
	if len(ids) == 1 {
		return xCi(ids[0], line)
	}
	return xApply("times", ciList(ids, line)...)
}

// flatModel reads the components of the flat model, as model reads those
// of a streamed one (the two dispatches must list the same components).
func (r *reader) flatModel(flat *elem, origin map[*elem]string) {
	main := r.file
	defer func() { r.file = main }()
	each := func(l *elem, want string, f func(*elem)) {
		for _, e := range l.kids {
			// Errors found while reading a component name the file it
			// came from (an external model definition's); errors found
			// later, once all are read, name the main file.
			r.file = main
			if o := origin[e]; o != "" {
				r.file = o
			}
			if want != "" && e.local != want {
				id, _ := e.attr("id")
				r.errorf(e.line, e.local, id, "unexpected element in <%s>", l.local)
				continue
			}
			f(e)
		}
	}
	for _, l := range flat.kids {
		switch l.local {
		case "listOfFunctionDefinitions":
			each(l, "functionDefinition", r.functionDefinition)
		case "listOfCompartments":
			each(l, "compartment", r.compartment)
		case "listOfSpecies":
			each(l, "species", r.species)
		case "listOfParameters":
			each(l, "parameter", func(e *elem) {
				if p := r.parameter(e, true); p != nil {
					r.m.Parameters = append(r.m.Parameters, p)
				}
			})
		case "listOfInitialAssignments":
			each(l, "initialAssignment", r.initialAssignment)
		case "listOfRules":
			each(l, "", r.rule)
		case "listOfReactions":
			each(l, "reaction", r.reaction)
		case "listOfEvents":
			each(l, "event", r.event)
		default:
			r.errorf(l.line, l.local, "", "unknown element in <model>")
		}
	}
}

func treeSize(e *elem) int {
	n := 1
	for _, k := range e.kids {
		n += treeSize(k)
	}
	return n
}

// expandedSize is the number of elements def flattens to, computed on
// the definitions (memoised) before any instance is made. A cycle of
// definitions counts once here; instantiate reports it.
func (f *flattener) expandedSize(doc *compDoc, def *elem, depth int, memo map[*elem]float64) float64 {
	if n, ok := memo[def]; ok {
		return n
	}
	memo[def] = 0 // a cycle adds nothing
	n := float64(treeSize(def))
	if depth <= maxCompDepth {
		for _, l := range def.kids {
			if l.space != compNS || l.local != "listOfSubmodels" {
				continue
			}
			for _, s := range l.kids {
				ref, _ := cattr(s, "modelRef")
				if ref == "" {
					continue
				}
				if sdoc, sdef := f.lookup(doc, ref, s.line, depth); sdef != nil {
					n += f.expandedSize(sdoc, sdef, depth+1, memo)
				}
			}
		}
	}
	memo[def] = n
	return n
}
