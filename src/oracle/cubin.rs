//! A minimal ELF cubin that nvdisasm accepts, holding raw words in kernel text sections.
//!
//! Facts (nvdisasm 13.5.37, ptxas 13.5.37 from PyPI `nvidia-cuda-nvcc`, checked with readelf):
//! - ptxas cubins are ELF64 little-endian, `EI_OSABI` 0x41, `EI_ABIVERSION` 8, `ET_EXEC`,
//!   `e_machine` 190 (`EM_CUDA`), and `e_flags = 0x0600_0000 | (sm << 8) | low`, where `low` is
//!   `0x04` for SM75..SM90 and `0x02` for SM100 and later. Seen: SM75 `0x6004b04`,
//!   SM80 `0x6005004`, SM86 `0x6005604`, SM87 `0x6005704`, SM88 `0x6005804`, SM89 `0x6005904`,
//!   SM90 and SM90a `0x6005a04`, SM100 and SM100a `0x6006402`, SM103 `0x6006702`,
//!   SM110 `0x6006e02`, SM120 `0x6007802`, SM121 `0x6007902`. nvdisasm takes the arch from
//!   `e_flags` (its `.headerflags` reads `EF_CUDA_SM100 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM100)`).
//! - nvdisasm needs none of ptxas's `.nv.info*`, `.nv.constant0.*`, `.note.nv.*`,
//!   `.debug_frame` or `.nv.merc.*` sections: `.shstrtab`, `.strtab`, `.symtab` and
//!   `PROGBITS` sections named `.text.<kernel>` with flags `SHF_ALLOC|SHF_EXECINSTR`,
//!   `sh_link` = the symtab and `sh_info` = the kernel's symbol index are enough, on every arch
//!   from SM75 to SM121. (ptxas puts the register count in `sh_info`'s top byte before SM100;
//!   nvdisasm does not need it.) A 16-byte `sh_addralign` is accepted (ptxas uses 128).
//! - Each text section starts at address 0 in nvdisasm's listing, so a cubin with one section
//!   per word shows every word at address 0.

use super::OracleError;
use crate::arch::Arch;

/// At most this many kernels (text sections) in one cubin: ELF section indices must stay below
/// `SHN_LORESERVE` (0xff00) without extended numbering; 4 sections come before the texts.
pub const MAX_KERNELS: usize = 0xff00 - 8;

const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHF_ALLOC: u64 = 2;
const SHF_EXECINSTR: u64 = 4;
const EM_CUDA: u16 = 190;
const ET_EXEC: u16 = 2;
const ELFOSABI_CUDA: u8 = 0x41;
const CUDA_ABI_VERSION: u8 = 8;
const STB_GLOBAL_STT_FUNC: u8 = (1 << 4) | 2;
const STO_CUDA_ENTRY: u8 = 0x10;
const TEXT_ALIGN: usize = 16;

/// The `e_flags` ptxas 13.5 writes for `arch`: `0x0600_0000 | (sm << 8) | low`, `low` = `0x04`
/// below SM100 and `0x02` from SM100 on (see the module notes for the values seen).
pub fn cubin_e_flags(arch: Arch) -> u32 {
    let low = if arch.0 >= 100 { 0x02 } else { 0x04 };
    0x0600_0000 | ((u32::from(arch.0) & 0xff) << 8) | low
}

/// Build an ELF cubin for `arch` with one kernel per element of `kernels`.
///
/// Kernel `i` is a global function symbol `k<i>` (`STO_CUDA_ENTRY`) whose section
/// `.text.k<i>` holds the words of `kernels[i]`, each as 16 little-endian bytes (low 64 bits
/// first), starting at address 0. Pass one kernel with many words to learn which words are
/// illegal (nvdisasm names each with its address), or one word per kernel to see every word at
/// address 0. An empty kernel gives an empty section.
///
/// Errors: [`OracleError::Input`] when `kernels.len()` exceeds [`MAX_KERNELS`].
pub fn build_cubin(arch: Arch, kernels: &[&[u128]]) -> Result<Vec<u8>, OracleError> {
    if kernels.len() > MAX_KERNELS {
        return Err(OracleError::Input {
            message: format!(
                "{} kernels in one cubin; at most {MAX_KERNELS}",
                kernels.len()
            ),
        });
    }
    // String tables.
    let mut shstrtab = vec![0u8];
    let add_str = |tab: &mut Vec<u8>, s: &str| -> u32 {
        let off = tab.len() as u32;
        tab.extend_from_slice(s.as_bytes());
        tab.push(0);
        off
    };
    let n_shstrtab = add_str(&mut shstrtab, ".shstrtab");
    let n_strtab = add_str(&mut shstrtab, ".strtab");
    let n_symtab = add_str(&mut shstrtab, ".symtab");
    let mut strtab = vec![0u8];
    let mut sec_names = Vec::with_capacity(kernels.len());
    let mut sym_names = Vec::with_capacity(kernels.len());
    for i in 0..kernels.len() {
        sym_names.push(add_str(&mut strtab, &format!("k{i}")));
        sec_names.push(add_str(&mut shstrtab, &format!(".text.k{i}")));
    }
    // Symbols: null, then one per kernel (all global, so sh_info of the symtab = 1).
    let first_text_section = 4usize;
    let mut symtab = vec![0u8; 24];
    for (i, k) in kernels.iter().enumerate() {
        symtab.extend_from_slice(&sym_names[i].to_le_bytes()); // st_name
        symtab.push(STB_GLOBAL_STT_FUNC); // st_info
        symtab.push(STO_CUDA_ENTRY); // st_other
        symtab.extend_from_slice(&((first_text_section + i) as u16).to_le_bytes()); // st_shndx
        symtab.extend_from_slice(&0u64.to_le_bytes()); // st_value
        symtab.extend_from_slice(&((k.len() * 16) as u64).to_le_bytes()); // st_size
    }

    let mut body = vec![0u8; 64];
    let put = |body: &mut Vec<u8>, data: &[u8], align: usize| -> u64 {
        while !body.len().is_multiple_of(align) {
            body.push(0);
        }
        let off = body.len() as u64;
        body.extend_from_slice(data);
        off
    };
    let o_shstrtab = put(&mut body, &shstrtab, 1);
    let o_strtab = put(&mut body, &strtab, 1);
    let o_symtab = put(&mut body, &symtab, 8);
    let mut o_texts = Vec::with_capacity(kernels.len());
    for k in kernels {
        while !body.len().is_multiple_of(TEXT_ALIGN) {
            body.push(0);
        }
        o_texts.push(body.len() as u64);
        for w in k.iter() {
            body.extend_from_slice(&w.to_le_bytes());
        }
    }
    while !body.len().is_multiple_of(8) {
        body.push(0);
    }
    let shoff = body.len() as u64;

    #[allow(clippy::too_many_arguments)]
    fn shdr(
        out: &mut Vec<u8>,
        name: u32,
        ty: u32,
        flags: u64,
        offset: u64,
        size: u64,
        link: u32,
        info: u32,
        align: u64,
        entsize: u64,
    ) {
        out.extend_from_slice(&name.to_le_bytes());
        out.extend_from_slice(&ty.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes()); // sh_addr
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&link.to_le_bytes());
        out.extend_from_slice(&info.to_le_bytes());
        out.extend_from_slice(&align.to_le_bytes());
        out.extend_from_slice(&entsize.to_le_bytes());
    }
    shdr(&mut body, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    let shstr_len = shstrtab.len() as u64;
    shdr(
        &mut body, n_shstrtab, SHT_STRTAB, 0, o_shstrtab, shstr_len, 0, 0, 1, 0,
    );
    let str_len = strtab.len() as u64;
    shdr(
        &mut body, n_strtab, SHT_STRTAB, 0, o_strtab, str_len, 0, 0, 1, 0,
    );
    let sym_len = symtab.len() as u64;
    shdr(
        &mut body, n_symtab, SHT_SYMTAB, 0, o_symtab, sym_len, 2, 1, 8, 24,
    );
    for (i, k) in kernels.iter().enumerate() {
        shdr(
            &mut body,
            sec_names[i],
            SHT_PROGBITS,
            SHF_ALLOC | SHF_EXECINSTR,
            o_texts[i],
            (k.len() * 16) as u64,
            3,
            (i + 1) as u32,
            TEXT_ALIGN as u64,
            0,
        );
    }
    let shnum = (first_text_section + kernels.len()) as u16;

    // ELF header.
    let mut h = Vec::with_capacity(64);
    h.extend_from_slice(b"\x7fELF");
    h.extend_from_slice(&[
        2,
        1,
        1,
        ELFOSABI_CUDA,
        CUDA_ABI_VERSION,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ]);
    h.extend_from_slice(&ET_EXEC.to_le_bytes());
    h.extend_from_slice(&EM_CUDA.to_le_bytes());
    h.extend_from_slice(&1u32.to_le_bytes()); // e_version
    h.extend_from_slice(&0u64.to_le_bytes()); // e_entry
    h.extend_from_slice(&0u64.to_le_bytes()); // e_phoff
    h.extend_from_slice(&shoff.to_le_bytes());
    h.extend_from_slice(&cubin_e_flags(arch).to_le_bytes());
    h.extend_from_slice(&64u16.to_le_bytes()); // e_ehsize
    h.extend_from_slice(&56u16.to_le_bytes()); // e_phentsize
    h.extend_from_slice(&0u16.to_le_bytes()); // e_phnum
    h.extend_from_slice(&64u16.to_le_bytes()); // e_shentsize
    h.extend_from_slice(&shnum.to_le_bytes());
    h.extend_from_slice(&1u16.to_le_bytes()); // e_shstrndx
    debug_assert_eq!(h.len(), 64);
    body[..64].copy_from_slice(&h);
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::read::elf::{ElfFile64, FileHeader};
    use object::{Object, ObjectSection, ObjectSymbol};

    #[test]
    fn e_flags_match_ptxas() {
        for (sm, flags) in [
            (75, 0x6004b04),
            (80, 0x6005004),
            (86, 0x6005604),
            (89, 0x6005904),
            (90, 0x6005a04),
            (100, 0x6006402),
            (103, 0x6006702),
            (110, 0x6006e02),
            (120, 0x6007802),
            (121, 0x6007902),
        ] {
            assert_eq!(cubin_e_flags(Arch(sm)), flags, "SM{sm}");
        }
    }

    #[test]
    fn cubin_parses_back() {
        let w0 = 0x000fea0003800000_000000000000794du128;
        let w1 = 0x000fc00000000000_0000000000007918u128;
        let k0 = [w0, w1];
        let k1 = [w1];
        let bytes = build_cubin(Arch(100), &[&k0, &k1, &[]]).unwrap();
        let elf = ElfFile64::<object::Endianness>::parse(&*bytes).unwrap();
        let hdr = elf.elf_header();
        let e = elf.endian();
        assert_eq!(hdr.e_machine(e), object::elf::Machine(190));
        assert_eq!(hdr.e_flags(e), object::elf::FileFlags(0x6006402));
        assert_eq!(hdr.e_ident().os_abi, object::elf::OsAbi(0x41));
        assert_eq!(hdr.e_ident().abi_version, 8);
        let texts: Vec<_> = elf
            .sections()
            .filter(|s| s.name().unwrap().starts_with(".text."))
            .collect();
        assert_eq!(texts.len(), 3);
        assert_eq!(texts[0].name().unwrap(), ".text.k0");
        let mut expect = w0.to_le_bytes().to_vec();
        expect.extend_from_slice(&w1.to_le_bytes());
        assert_eq!(texts[0].data().unwrap(), &expect[..]);
        assert_eq!(texts[1].data().unwrap(), &w1.to_le_bytes()[..]);
        assert_eq!(texts[2].data().unwrap(), &[] as &[u8]);
        assert_eq!(texts[0].kind(), object::SectionKind::Text);
        let syms: Vec<_> = elf
            .symbols()
            .map(|s| s.name().unwrap().to_string())
            .collect();
        assert_eq!(syms, ["k0", "k1", "k2"]);
        let k1sym = elf.symbols().find(|s| s.name() == Ok("k1")).unwrap();
        assert_eq!(k1sym.size(), 16);
        assert_eq!(k1sym.section_index(), Some(texts[1].index()));
    }

    #[test]
    fn too_many_kernels_is_an_error() {
        let one: &[u128] = &[0];
        let many = vec![one; MAX_KERNELS + 1];
        assert!(build_cubin(Arch(80), &many).is_err());
    }
}
