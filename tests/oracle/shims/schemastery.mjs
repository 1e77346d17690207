// Shim of @hydraharness/schemastery: only enough for the seed's static
// `Config = z.object({...})` declaration. Every builder method chains.
function schema(kind, inner) {
  const node = { kind, inner };
  for (const method of ["step", "min", "max", "default", "description", "required"]) {
    node[method] = () => node;
  }
  return node;
}

const z = {
  object: (shape) => schema("object", shape),
  number: () => schema("number"),
  string: () => schema("string"),
  boolean: () => schema("boolean"),
};

export default z;
