//! Construction of the abstract event graph from the normalised IR.
